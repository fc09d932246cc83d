import numpy as np


def _any(vals, lanes):
    """__match_any_sync: for each lane, the mask of lanes (within ``lanes``) holding its value."""
    out = {}
    for l in lanes:
        out[l] = sum(1 << k for k in lanes if vals[k] == vals[l])
    return out


def _all(vals, lanes):
    mask = sum(1 << k for k in lanes)
    same = all(vals[k] == vals[lanes[0]] for k in lanes)
    return (mask if same else 0), (1 if same else 0)


def match_sync(args, spec):
    uin, lin, _ = args
    out = np.zeros(128 * 10, dtype=np.uint32)
    full = list(range(32))
    lo, hi = list(range(12)), list(range(12, 32))
    for w in range(4):
        v = [int(x) % 5 for x in uin[32 * w : 32 * w + 32]]
        lv = [int(x) & 0x300000003 for x in lin[32 * w : 32 * w + 32]]
        fv = [(x & 1) * 0.5 for x in v]
        dv = [l // 8 for l in range(32)]
        a0, a1, a2, a3 = _any(v, full), _any(lv, full), _any(fv, full), _any(dv, full)
        m4, p4 = _all(v, full)
        m6, p6 = _all([1] * 32, full)
        a8lo, a8hi = _any(v, lo), _any(lv, hi)
        m9lo, p9lo = _all([x >> 32 for x in lv], lo)
        m9hi, p9hi = _all([0] * 32, hi)
        for lane in range(32):
            o = (32 * w + lane) * 10
            out[o : o + 8] = [a0[lane], a1[lane], a2[lane], a3[lane], m4, p4 & 0xFFFFFFFF, m6, p6]
            if lane < 12:
                out[o + 8] = a8lo[lane]
                out[o + 9] = m9lo | (p9lo << 31)
            else:
                out[o + 8] = a8hi[lane]
                out[o + 9] = m9hi ^ p9hi
    return {2: out}
