import numpy as np


def compact_block(args, spec):
    inp, out, counts, thr = args
    thr = int(thr[0])
    bs = spec.block[0]
    res, rc = out.copy(), counts.copy()
    for b in range(spec.grid[0]):
        v = inp[b * bs : (b + 1) * bs]
        kept = v[v > thr]
        res[b * bs : b * bs + kept.size] = kept
        rc[b] = kept.size
    return {1: res, 2: rc}
