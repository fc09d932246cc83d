import numpy as np


def load_widths(args, spec):
    s8, u8, s16, u16, s64, out, n = args
    n = int(n[0])
    i = np.arange(n)
    a8, b8, a16, b16 = (v[:n].astype(np.int32) for v in (s8, u8, s16, u16))
    rows = [
        a8,
        b8,
        a16,
        b16,
        (s64[:n] >> 17).astype(np.int32),
        a8 * b8 + a16 - b16,
        s8[n - 1 - i].astype(np.int32) + s8[(i * 7) % n].astype(np.int32),
    ]
    res = out.copy()
    for k, r in enumerate(rows):
        res[k * n : (k + 1) * n] = r
    return {5: res}


def store_widths(args, spec):
    a, o8, o16, ou8, o64, ou16, n = args
    n = int(n[0])
    x = a[:n]
    r8, r16, ru8, r64, ru16 = o8.copy(), o16.copy(), ou8.copy(), o64.copy(), ou16.copy()
    r8[:n] = x.astype(np.int8)
    r16[:n] = (x >> 3).astype(np.int16)
    ru8[0 : 2 * n : 2] = (x & 0xFF).astype(np.uint8)
    ru8[1 : 2 * n : 2] = (x.view(np.uint32) >> np.uint32(24)).astype(np.uint8)
    r64[:n] = x
    ru16[0 : 3 * n : 3] = x.astype(np.uint16)
    ru16[1 : 3 * n : 3] = (x >> 16).astype(np.uint16)
    ru16[2 : 3 * n : 3] = (np.arange(n) * 3).astype(np.uint16)
    return {1: r8, 2: r16, 3: ru8, 4: r64, 5: ru16}
