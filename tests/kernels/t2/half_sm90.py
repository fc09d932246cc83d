import numpy as np

from openptxas.testing.refmath import Fmt, Rnd, convert


def _tf32(x, rnd):
    out = convert(x.astype(np.float32), Fmt.F32, Fmt.TF32, rnd)
    return out.astype(np.float32)


def cvt_tf32_sm90(args, spec):
    x, _, n = args
    x = x[: int(n[0])]
    return {1: np.concatenate([_tf32(x, Rnd.RN), _tf32(x, Rnd.RZ)])}


def cvt_f16_bf16(args, spec):
    h, b, _, _, _, n = args
    n = int(n[0])
    h16 = h[:n].view(np.float16)
    h2b = convert(h16, Fmt.F16, Fmt.BF16, Rnd.RN).astype(np.uint16)
    h2b[np.isnan(h16)] = 0x7FFF  # canonical bf16 NaN
    b2h = convert(b[:n], Fmt.BF16, Fmt.F16, Rnd.RN).view(np.uint16).copy()
    b2f = (b[:n].astype(np.uint32) << 16).view(np.float32)
    b2h[np.isnan(b2f)] = 0x7FFF  # canonical f16 NaN
    return {2: h2b, 3: b2h, 4: b2f}


def mufu_bf16(args, spec):
    b, _, _, n = args
    n = int(n[0])
    x = (b[:n].astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    x2 = np.roll(x, -1)
    with np.errstate(all="ignore"):
        th = np.concatenate([np.tanh(x), np.tanh(x), np.tanh(x2)])
        ex = np.exp2(np.concatenate([x, x, x2]))
    # .ftz: bf16 results below the smallest normal (2^-126) are flushed to zero
    ex = np.where(ex < 2.0**-126, 0.0, ex)
    return {1: th.astype(np.float32), 2: ex.astype(np.float32)}
