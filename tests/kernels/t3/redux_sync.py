from functools import reduce

import numpy as np

M32 = 0xFFFFFFFF


def _lanes(mask):
    return [l for l in range(32) if (mask >> l) & 1]


def redux_sync(args, spec):
    uin, sin, _ = args
    out = np.zeros(128 * 12, dtype=np.uint32)
    for w in range(4):
        u = [int(v) for v in uin[32 * w : 32 * w + 32]]
        s = [int(v) for v in sin[32 * w : 32 * w + 32]]
        add = lambda vals: sum(vals) & M32  # noqa: E731
        xor = lambda vals: reduce(lambda a, b: a ^ b, vals)  # noqa: E731
        full = [
            add(u), min(u), max(u), min(s) & M32, max(s) & M32,
            reduce(lambda a, b: a & b, [v | 0x0F0F0000 for v in u]),
            reduce(lambda a, b: a | b, [v & 0x00FF00FF for v in u]),
            xor(u),
        ]
        lo, hi = _lanes(0x000FFFFF), _lanes(0xFFF00000)
        odd, even = _lanes(0xAAAAAAAA), _lanes(0x55555555)
        for lane in range(32):
            o = (32 * w + lane) * 12
            out[o : o + 8] = full
            if lane < 20:
                out[o + 8] = add([s[l] & M32 for l in lo])
                out[o + 9] = max(s[l] for l in lo) & M32
            else:
                out[o + 8] = 0xDEADBEEF
                out[o + 9] = min(s[l] for l in hi) & M32
            if lane & 1:
                out[o + 10] = xor([u[l] >> (l & 7) for l in odd])
                out[o + 11] = min(u[l] for l in odd)
            else:
                out[o + 10] = reduce(lambda a, b: a | b, [(l << (l & 15)) & M32 for l in even])
                out[o + 11] = add([l * 1000 for l in even])
    return {2: out}
