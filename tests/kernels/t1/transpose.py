import numpy as np


def _transpose(args):
    inp, out, rows, cols = args
    rows, cols = int(rows[0]), int(cols[0])
    res = out.copy()
    res[: rows * cols] = inp[: rows * cols].reshape(rows, cols).T.reshape(-1)
    return {1: res}


def transpose_naive(args, spec):
    return _transpose(args)


def transpose_tiled(args, spec):
    return _transpose(args)
