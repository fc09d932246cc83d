"""Both scans are replayed with the kernel's exact sequence of (pinned) additions."""

import numpy as np


def hillis_steele(args, spec):
    inp, out = args
    n = spec.block[0]
    dt = inp.dtype.type
    res = out.copy()
    for b in range(spec.grid[0]):
        cur = inp[b * n : (b + 1) * n].copy()
        o = 1
        while o < n:
            nxt = cur.copy()
            nxt[o:] = (cur[:-o] + cur[o:]).astype(dt)
            cur = nxt
            o <<= 1
        res[b * n : (b + 1) * n] = cur
    return {1: res}


def blelloch(args, spec):
    inp, out, totals = args
    m = 2 * spec.block[0]
    dt = inp.dtype.type
    res, r_t = out.copy(), totals.copy()
    for b in range(spec.grid[0]):
        s = inp[b * m : (b + 1) * m].copy()
        off = 1
        d = m >> 1
        while d > 0:
            t = np.arange(d)
            ai, bi = off * (2 * t + 1) - 1, off * (2 * t + 2) - 1
            s[bi] = (s[ai] + s[bi]).astype(dt)
            off <<= 1
            d >>= 1
        r_t[b] = s[m - 1]
        s[m - 1] = dt(0)
        d = 1
        while d < m:
            off >>= 1
            t = np.arange(d)
            ai, bi = off * (2 * t + 1) - 1, off * (2 * t + 2) - 1
            a = s[ai].copy()
            s[ai] = s[bi]
            s[bi] = (a + s[bi]).astype(dt)
            d <<= 1
        res[b * m : (b + 1) * m] = s
    return {1: res, 2: r_t}
