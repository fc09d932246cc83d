import numpy as np

F = np.float32


def fma32(a, b, c):
    """Correctly rounded float32 fma: the exact a*b + c rounded once to float32.

    a*b is exact in float64; the sum is rounded to float64 with round-to-odd (TwoSum gives the
    exact error), and a round-to-odd result with 29 extra bits rounds to float32 correctly."""
    a, b, c = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    bits = s.view(np.int64).copy()
    fix = np.isfinite(s) & (err != 0) & ((bits & 1) == 0)
    toward_larger = (err > 0) == (s > 0)
    bits[fix & toward_larger] += 1
    bits[fix & ~toward_larger] -= 1
    return bits.view(np.float64).astype(np.float32)


def _rows(res, rows, n):
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = np.asarray(r, dtype=np.float32)
    return res


def f32_basic(args, spec):
    a, b, c, out, n = args
    n = int(n[0])
    x, y, z = a[:n], b[:n], c[:n]
    rows = [
        x + y,
        x - y,
        x * y,
        fma32(x, y, z),
        fma32(-x, y, z),
        fma32(x, y, -z),
        (x * y) + z,
        -x,
        np.abs(x),
        np.fmin(x, y),
        np.fmax(x, y),
        fma32(x, F(2), F(1)),
        x * F(0.5),
        (x * F(3)) - y,
        np.abs(x - y),
        np.copysign(x, y),
        fma32(x, y, z),
        x - z,
        x + F(1),
        fma32(x, x, F(-1)),
        np.fmax(np.fmin(x, F(1)), F(-1)),
        np.clip(x, F(0), F(1)),
        np.where(x > 0, x, F(0.125) * x),
        (x + y) + z,
        x + (y + z),
    ]
    return {3: _rows(out.copy(), rows, n)}


def f32_special(args, spec):
    a, b, out, n = args
    n = int(n[0])
    x, y = a[:n], b[:n]
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        big = (x * F(3.0e38)) * F(16)
        rows = [
            x * F(1.0e-38),
            fma32(x, F(1.0e-38), F(1.0e-39)),
            (x * F(1.0e-38)) - (y * F(1.0e-38)),
            (x * F(3.0e38)) * F(10),
            big - big,
            np.fmin(big - big, y),
            fma32(x, F(3.0e38), y * F(3.0e38)),
            (x * F(1.0e-30)) * F(1.0e-15),
            F(1.0e-45) + (x * F(1.0e-44)),
        ]
        return {2: _rows(out.copy(), rows, n)}
