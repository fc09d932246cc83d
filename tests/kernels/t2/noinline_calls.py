import numpy as np

from openptxas.testing import refmath as R

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
F = R.Fmt.F32


def _s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def _s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def mix(a, b, c, d):
    """int mix(int a, int b, unsigned c, long long d)"""
    return _s32((_s32(a * 31 + b)) ^ _s32((c & M32) >> 3) ^ _s32(_s64(d) >> 17))


def chain(x):
    popc = bin(x & M32).count("1")
    return _s32(mix(x, popc, 7, _s64(x << 20)) + 1)


def _fill_big(seed):
    return [_s32(seed * (k + 1) + k) for k in range(12)], float(seed) * 0.5


def _sum_big(seed, skip):
    v, d = _fill_big(seed)
    s = sum(v[k] * (k + 1) for k in range(12) if k != skip)
    return _s64(s + int(d))  # (long long)d truncates toward zero


def _f32(v):
    return np.asarray(v, dtype=np.float32)


def noinline_calls(args, spec):
    ki, kf, kd, oi, of, od, ol, n = args
    n = int(n[0])
    oi, of, od, ol = oi.copy(), of.copy(), od.copy(), ol.copy()
    for i in range(n):
        a = int(ki[i])
        f = kf[i]
        oi[0 * n + i] = mix(a, i, (a * 3) & M32, a * 1000003)
        oi[1 * n + i] = chain(a) if -0.5 <= f < 0.5 else _s32(-chain(i))
        acc = 0
        for j in range(i & 7):
            acc = _s32(acc + mix(acc, j, i, j))
        oi[2 * n + i] = acc
        oi[3 * n + i] = a ^ 0x55
        ol[0 * n + i] = _s64((a << 12) * 3)
        ol[1 * n + i] = _sum_big(a >> 8, i % 12)
    f, g, h = kf[:n], kf[n : 2 * n], kf[2 * n : 3 * n]
    of[0:n] = R.fma(R.fma(g, f, h, F), f, np.full(n, 0.25, np.float32), F)

    def m(p, q):
        return R.mul(p, q, F)

    # u = (f, g, h), v = (h, f, g)
    wx = R.sub(m(g, g), m(h, f), F)
    wy = R.sub(m(h, h), m(f, g), F)
    wz = R.sub(m(f, f), m(g, h), F)
    s = np.full(n, 2.5, np.float32)
    of[n : 2 * n], of[2 * n : 3 * n], of[3 * n : 4 * n] = m(wx, s), m(wy, s), m(wz, s)
    k = (ki[:n] >> 20).astype(np.float64)
    od[:n] = kd[:n] * k + kf[:n].astype(np.float64)
    return {3: oi, 4: of, 5: od, 6: ol}
