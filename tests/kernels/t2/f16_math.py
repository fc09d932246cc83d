import numpy as np

from openptxas.testing import refmath as R


def f16_math(args, spec):
    a, b, _, _, n = args
    n = int(n[0])
    xh, yh = a[:n], b[:n]
    x, y = xh.astype(np.float64), yh.astype(np.float64)
    ax = np.abs(x)
    approx = [
        np.sqrt(ax), 1.0 / np.sqrt(ax), 1.0 / y, np.exp(x), np.exp2(y), 10.0**x,
        np.log(ax), np.log2(ax), np.log10(ax), np.sin(x), np.cos(y), np.tanh(x),
        np.exp(x), np.exp(y), np.sqrt(ax), np.sqrt(np.abs(y)),
    ]
    s = R.mul(xh, np.full(n, 7.0, np.float16), R.Fmt.F16)
    exact = [np.ceil(s), np.floor(s), np.trunc(s), np.rint(s)]
    # the results are f16 values: round the exact ones to f16 first
    approx = [v.astype(np.float16).astype(np.float32) for v in approx]
    return {2: np.concatenate(approx), 3: np.concatenate(exact).astype(np.float16)}


def bf16_math(args, spec):
    a, b, _, _, n = args
    n = int(n[0])
    B, F = R.Fmt.BF16, R.Fmt.F32
    xb, yb = R.convert(a[:n], F, B), R.convert(b[:n], F, B)
    x, y = R.bf16_to_f32(xb).astype(np.float64), R.bf16_to_f32(yb).astype(np.float64)
    ax = np.abs(x)
    approx = [np.sqrt(ax), 1.0 / y, np.exp(x), np.log2(ax), np.sin(x), np.cos(y)]
    approx = [R.bf16_to_f32(R.convert(v, R.Fmt.F64, B)) for v in approx]
    s = R.bf16_to_f32(R.convert(a[:n] * np.float32(7.0), F, B))
    exact = [R.convert(f(s), F, B) for f in (np.ceil, np.floor, np.trunc, np.rint)]
    return {2: np.concatenate(approx), 3: np.concatenate(exact)}
