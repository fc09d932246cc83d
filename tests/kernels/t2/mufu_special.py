import numpy as np

INF, NAN = np.inf, np.nan
SUB = np.float32(1e-40)  # a subnormal operand

# Exact results of the .ftz instruction on the special operands (PTX ISA, the tables of each
# .approx instruction; .ftz flushes subnormal operands and results to sign-preserving zero).
SPECIAL = {
    "mufu_rcp": [
        (-INF, -0.0),
        (-SUB, -INF),
        (-0.0, -INF),
        (0.0, INF),
        (SUB, INF),
        (INF, 0.0),
        (NAN, NAN),
        (-1e38, -0.0),
        (1e38, 0.0),
    ],
    "mufu_rsqrt": [
        (-INF, NAN),
        (-SUB, -INF),
        (-0.0, -INF),
        (0.0, INF),
        (SUB, INF),
        (INF, 0.0),
        (NAN, NAN),
        (-1.0, NAN),
        (-1e38, NAN),
    ],
    "mufu_sqrt": [
        (-INF, NAN),
        (-SUB, -0.0),
        (-0.0, -0.0),
        (0.0, 0.0),
        (SUB, 0.0),
        (INF, INF),
        (NAN, NAN),
        (-1.0, NAN),
    ],
    "mufu_ex2": [
        (-INF, 0.0),
        (-SUB, 1.0),
        (-0.0, 1.0),
        (0.0, 1.0),
        (SUB, 1.0),
        (INF, INF),
        (NAN, NAN),
        (130.0, INF),
        (-130.0, 0.0),
        (-1000.0, 0.0),
        (1000.0, INF),
    ],
    "mufu_lg2": [
        (-INF, NAN),
        (-SUB, -INF),
        (-0.0, -INF),
        (0.0, -INF),
        (SUB, -INF),
        (INF, INF),
        (NAN, NAN),
        (-1.0, NAN),
    ],
    "mufu_sin": [
        (-INF, NAN),
        (-SUB, -0.0),
        (-0.0, -0.0),
        (0.0, 0.0),
        (SUB, 0.0),
        (INF, NAN),
        (NAN, NAN),
    ],
    "mufu_cos": [
        (-INF, NAN),
        (-SUB, 1.0),
        (-0.0, 1.0),
        (0.0, 1.0),
        (SUB, 1.0),
        (INF, NAN),
        (NAN, NAN),
    ],
    # tanh.approx.f32 has no .ftz: a subnormal operand is returned as is.
    "mufu_tanh": [
        (-INF, -1.0),
        (-SUB, -SUB),
        (-0.0, -0.0),
        (0.0, 0.0),
        (SUB, SUB),
        (INF, 1.0),
        (NAN, NAN),
    ],
}

MATH = {
    "mufu_rcp": (lambda v: 1.0 / v, lambda v: v),
    "mufu_rsqrt": (lambda v: 1.0 / np.sqrt(v), np.abs),
    "mufu_sqrt": (np.sqrt, np.abs),
    "mufu_ex2": (np.exp2, lambda v: v * 8.0),
    "mufu_lg2": (np.log2, np.abs),
    "mufu_sin": (np.sin, lambda v: v * 16.0),
    "mufu_cos": (np.cos, lambda v: v * 16.0),
    "mufu_tanh": (np.tanh, lambda v: v * 2.0),
}


def special_inputs(name):
    return np.array([a for a, _ in SPECIAL[name]], dtype=np.float32)


def _ref(name, args):
    sp, x, _, _, n_sp, n = args
    n_sp, n = int(n_sp[0]), int(n[0])
    assert n_sp == len(SPECIAL[name])
    f, xf = MATH[name]
    with np.errstate(all="ignore"):
        exact = np.array([r for _, r in SPECIAL[name]], dtype=np.float32)
        full_sp = f(sp[:n_sp].astype(np.float64))  # non-ftz: subnormal operands taken as they are
        v = xf(x[:n].astype(np.float64))
        rnd = f(v)
        t = np.concatenate([full_sp, rnd, rnd]).astype(np.float32)
    return {2: exact, 3: t}


def mufu_rcp(args, spec):
    return _ref("mufu_rcp", args)


def mufu_rsqrt(args, spec):
    return _ref("mufu_rsqrt", args)


def mufu_sqrt(args, spec):
    return _ref("mufu_sqrt", args)


def mufu_ex2(args, spec):
    return _ref("mufu_ex2", args)


def mufu_lg2(args, spec):
    return _ref("mufu_lg2", args)


def mufu_sin(args, spec):
    return _ref("mufu_sin", args)


def mufu_cos(args, spec):
    return _ref("mufu_cos", args)


def mufu_tanh(args, spec):
    return _ref("mufu_tanh", args)
