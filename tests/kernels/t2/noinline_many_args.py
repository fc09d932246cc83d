import numpy as np

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def _s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def _s16(v):
    v &= 0xFFFF
    return v - (1 << 16) if v >> 15 else v


def noinline_many_args(args, spec):
    ki, kf, kd, kl, oi, od, oh = args
    nt = spec.threads * spec.ctas
    oi, od, oh = oi.copy(), od.copy(), oh.copy()
    for t in range(nt):
        p = [int(v) for v in ki[t * 12 : t * 12 + 12]]
        q = kf[t * 8 : t * 8 + 8].astype(np.float64)
        d = kd[t * 4 : t * 4 + 4]
        l0, l1 = int(kl[2 * t]), int(kl[2 * t + 1])
        isum = sum((k + 1) * p[k] for k in range(12)) + (l0 >> 3) - (l1 >> 5)
        isum += (p[0] & 0xFF) * 1000 + _s16(p[1])
        oi[t] = _s64(isum)
        f = np.float64(0.0)
        for term in (q[0], q[1] * 2.0, q[2] * 4.0, q[3] * 8.0, q[4], q[5], q[6], q[7],
                     d[0], d[1], d[2] * d[3]):
            f = np.float64(f + term)
        od[t] = f
        w = [(p[j % 12] + j) for j in range(80)]
        h = 2166136261
        for j in range(80):
            h = ((h ^ (w[(j + t) % 80] & M32)) * 16777619) & M32
        oh[t] = h
    return {4: oi, 5: od, 6: oh}
