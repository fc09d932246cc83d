import numpy as np

F = np.float32


def last_block_sum(args, spec):
    inp, partial, total, which_last, n = args
    n = int(n[0])
    bs = spec.block[0]
    nb = spec.grid[0]
    r_p = partial.copy()
    for b in range(nb):
        i = b * bs + np.arange(bs)
        s = np.where(i < n, inp[np.minimum(i, inp.size - 1)], F(0)).astype(F)
        stride = bs // 2
        while stride > 0:
            s[:stride] = s[:stride] + s[stride : 2 * stride]
            stride //= 2
        r_p[b] = s[0]
    acc = F(0)
    for b in range(nb):
        acc = F(acc + r_p[b])
    return {1: r_p, 2: np.array([acc], dtype=F), 3: np.array([1], dtype=np.uint32)}
