import math

import numpy as np


def _c_mod(k, m):
    """C's truncating remainder (k % m) for int32 arrays."""
    return (np.sign(k) * (np.abs(k.astype(np.int64)) % m)).astype(np.int32)


def _exact(x, y, k, dt):
    fdt = np.dtype(dt)
    rem = np.array([math.remainder(float(p), float(q)) for p, q in zip(x, y)], dtype=fdt)
    # remquo: the quotient rounded to nearest (ties to even), as remainder() uses it
    quo = np.array(
        [int(round((float(p) - float(r)) / float(q))) for p, q, r in zip(x, y, rem)],
        dtype=np.int64,
    )
    mant, e = np.frexp(x)
    frac, ip = np.modf(x)
    tr = np.trunc(x)
    rnd = np.where(np.abs(x - tr) >= 0.5, tr + np.sign(x), tr).astype(fdt)
    _, ey = np.frexp(y)
    rows = [
        np.fmod(x, y),
        rem,
        np.ldexp(y, k).astype(fdt),
        mant,
        frac,
        ip,
        np.nextafter(x, y),
        np.copysign(x, y),
        tr,
        rnd,
        np.rint(x),
        np.floor(x),
        np.ceil(x),
        np.where(x > y, x - y, fdt.type(0)).astype(fdt),
        np.fmin(x, y),
        np.fmax(x, y),
        (e - 1).astype(fdt),
        np.ldexp(x, -k).astype(fdt),
        rem,
    ]
    sign = np.where((x < 0) != (y < 0), -1, 1)
    q3 = (sign * (np.abs(quo) & 7)) & 7
    ints = [e.astype(np.int32), (ey - 1).astype(np.int32), q3.astype(np.int32),
            np.rint(x).astype(np.int32), rnd.astype(np.int32)]
    return np.concatenate(rows).astype(fdt), np.concatenate(ints)


def exact_libm_f32(args, spec):
    a, b, ks, _, _, n = args
    n = int(n[0])
    x = a[:n] * np.float32(10.0)
    out, oi = _exact(x, b[:n], _c_mod(ks[:n], 12), np.float32)
    return {3: out, 4: oi}


def exact_libm_f64(args, spec):
    a, b, ks, _, _, n = args
    n = int(n[0])
    x = a[:n] * 10.0
    out, oi = _exact(x, b[:n], _c_mod(ks[:n], 12), np.float64)
    return {3: out, 4: oi}
