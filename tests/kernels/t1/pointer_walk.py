import numpy as np

M32 = 0xFFFFFFFF


def chase(args, spec):
    nodes, out, steps, n = args
    steps, n = int(steps[0]), int(n[0])
    nxt = nodes[0::2].view(np.uint32)
    val = nodes[1::2]
    res = out.copy()
    for i in range(n):
        p, s = i, 0
        for _ in range(steps):
            s = (s * 31 + (int(val[p]) & M32)) & M32
            p = int(nxt[p]) % n
        res[2 * i] = s - (1 << 32) if s >> 31 else s
        res[2 * i + 1] = p
    return {1: res}


def walk_back(args, spec):
    a, b, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        base = b if i & 1 else a
        k = n - 1 - i
        acc = int(base[k])
        while k >= 3:
            k -= 3
            acc += int(base[k])
        res[2 * i] = acc
        res[2 * i + 1] = k
    return {2: res}
