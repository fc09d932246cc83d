import numpy as np

NODES = 63


def _fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def recursion(args, spec):
    present, val, oi, ol = args
    oi, ol = oi.copy(), ol.copy()
    pres = [int(p) for p in present]
    v = [int(x) for x in val]

    def child(node, side):
        c = 2 * node + 1 + side
        return c if c < NODES and (pres[node] >> side) & 1 else -1

    def depth(node):
        if node < 0:
            return 0
        return 1 + max(depth(child(node, 0)), depth(child(node, 1)))

    def ssum(node, level):
        if node < 0:
            return 0
        return v[node] * (level + 1) + ssum(child(node, 0), level + 1) - ssum(child(node, 1), level + 1)

    for t in range(64):
        oi[3 * t] = _fib(t % 13)
        oi[3 * t + 1] = 1 if (t * 7 % 41) % 2 == 0 else 2
        oi[3 * t + 2] = depth(t)  # node 63 lies outside the tree: a lone leaf
        ol[t] = ssum(t, 0)
    return {2: oi, 3: ol}
