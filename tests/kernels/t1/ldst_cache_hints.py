import numpy as np


def cache_hints(args, spec):
    a, b, c, out, iout, n = args
    n = int(n[0])
    i = np.arange(n)
    x = a[:n]
    y = b[:n]
    z = a[i ^ 1]
    w = b[(i + 3) % n]
    u = a[n - 1 - i]
    v = b[i >> 1]
    q = c.reshape(-1, 4)[:n]
    res, ires = out.copy(), iout.copy()
    res[:n] = x + z
    res[n : 2 * n] = u - q[:, 0]
    ires[:n] = y ^ w
    ires[n : 2 * n] = (v.view(np.uint32) + (q[:, 1] > 0).astype(np.uint32)).view(np.int32)
    res[2 * n : 3 * n] = q[:, 2] + q[:, 3]
    return {3: res, 4: ires}


def volatile_io(args, spec):
    buf, out, n = args
    n = int(n[0])
    first = buf[:n].view(np.uint32)
    second = first * np.uint32(3)
    rb, ro = buf.copy(), out.copy()
    rb[:n] = (second ^ np.uint32(0x0F0F0F0F)).view(np.int32)
    ro[:n] = (first - second).view(np.int32)
    return {0: rb, 1: ro}
