import numpy as np

from openptxas.testing.refmath import Fmt, Rnd, convert

F16_MAX, BF16_MAX, TF32_MAX = 0x7BFF, 0x7F7F, 0x7F7FE000
F16_NAN, BF16_NAN = 0x7FFF, 0x7FFF  # the canonical NaNs cvt writes (PTX ISA)


def to_half(x, fmt, rnd, relu=False, sat=False):
    """cvt.rnd{.relu}{.satfinite}.{f16,bf16}.f32 of each element, as bit patterns (uint32)."""
    out = convert(x.astype(np.float32), Fmt.F32, fmt, rnd)
    bits = (out.view(np.uint16) if fmt is Fmt.F16 else out).astype(np.uint32)
    mx = F16_MAX if fmt is Fmt.F16 else BF16_MAX
    res = []
    for v, b in zip(x.tolist(), bits.tolist(), strict=True):
        if v != v:
            res.append(F16_NAN if fmt is Fmt.F16 else BF16_NAN)
            continue
        if relu and (v < 0 or (v == 0 and np.signbit(v)) or b & 0x8000):
            b = 0  # negative (or rounded to -0): +0
        if sat and (b & 0x7FFF) > mx:
            b = (b & 0x8000) | mx  # past the largest finite value, infinities included
        res.append(b)
    return np.array(res, dtype=np.uint32)


def _packs(x, n, fmt, modes):
    a, b = x[0 : 2 * n : 2], x[1 : 2 * n : 2]
    return np.concatenate([(to_half(a, fmt, *m) << 16) | to_half(b, fmt, *m) for m in modes])


def pack_f16x2(args, spec):
    x, _, n = args
    modes = [(Rnd.RN,), (Rnd.RZ,), (Rnd.RN, True), (Rnd.RN, False, True), (Rnd.RN, True, True)]
    return {1: _packs(x, int(n[0]), Fmt.F16, modes).astype(np.uint32)}


def pack_bf16x2(args, spec):
    x, _, n = args
    modes = [(Rnd.RN,), (Rnd.RZ,), (Rnd.RN, True), (Rnd.RN, False, True)]
    return {1: _packs(x, int(n[0]), Fmt.BF16, modes).astype(np.uint32)}


def cvt_half_scalar(args, spec):
    x, _, n = args
    x = x[: int(n[0])]
    parts = [
        to_half(x, Fmt.F16, Rnd.RN, relu=True),
        to_half(x, Fmt.BF16, Rnd.RN, relu=True),
        to_half(x, Fmt.BF16, Rnd.RZ),
        to_half(x, Fmt.F16, Rnd.RZ),
    ]
    return {1: np.concatenate(parts).astype(np.uint16)}


def tf32_rna(x, sat):
    """cvt.rna{.satfinite}.tf32.f32: keep 10 mantissa bits, ties away from zero; NaN stays NaN
    (compared as a NaN: tf32 results are f32 data); without .satfinite a carry past the largest
    exponent gives inf, with it the largest finite tf32 value."""
    res = []
    for b in x.view(np.uint32).tolist():
        s, m = b & 0x80000000, b & 0x7FFFFFFF
        if m > 0x7F800000:
            res.append(0x7FFFFFFF)
            continue
        if m != 0x7F800000:
            m = (m + 0x1000) & ~0x1FFF
        if sat and m >= 0x7F800000:
            m = TF32_MAX
        res.append(s | m)
    return np.array(res, dtype=np.uint32)


def cvt_tf32_rna(args, spec):
    x, _, n = args
    x = x[: int(n[0])]
    return {1: np.concatenate([tf32_rna(x, False), tf32_rna(x, True)]).view(np.float32)}
