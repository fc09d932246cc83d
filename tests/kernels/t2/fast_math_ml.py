import numpy as np


def fm_softmax(args, spec):
    x, _ = args
    v = x.astype(np.float64).reshape(-1, 128)
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return {1: (e / e.sum(axis=1, keepdims=True)).astype(np.float32).reshape(-1)}


def fm_activations(args, spec):
    x, _, n = args
    v = x[: int(n[0])].astype(np.float64)
    sg = 1.0 / (1.0 + np.exp(-v))
    out = [sg, v * sg, np.log1p(np.exp(v)), sg]
    return {1: np.concatenate(out).astype(np.float32)}


def fm_normalize(args, spec):
    x, _, rows = args
    v = x[: 8 * int(rows[0])].astype(np.float64).reshape(-1, 8)
    return {1: (v / np.sqrt((v * v).sum(axis=1, keepdims=True))).astype(np.float32).reshape(-1)}


def _ftz(v):
    v = np.asarray(v, dtype=np.float64)
    return np.where(np.abs(v) < 2.0**-126, 0.0 * np.sign(v), v)


def fm_trig_ftz(args, spec):
    x, tiny, _, _, n, nt = args
    v = x[: int(n[0])].astype(np.float32) * np.float32(10.0)
    v = v.astype(np.float64)
    s, c = np.sin(v), np.cos(v)
    trig = np.concatenate([s, c, s / (c + 2.0)]).astype(np.float32)
    t = _ftz(tiny[: int(nt[0])])  # .ftz: subnormal operands read as zero
    ftz = np.concatenate([_ftz(t * 4.0), _ftz(np.exp2(t * 150.0)), np.sqrt(np.abs(t))])
    return {2: trig, 3: ftz.astype(np.float32)}
