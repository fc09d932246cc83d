import numpy as np

M32 = 0xFFFFFFFF


def fma32(a, b, c):
    """Correctly rounded float32 fma (see t1/f32_arith.py)."""
    a, b, c = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    bits = s.view(np.int64).copy()
    fix = np.isfinite(s) & (err != 0) & ((bits & 1) == 0)
    up = (err > 0) == (s > 0)
    bits[fix & up] += 1
    bits[fix & ~up] -= 1
    return bits.view(np.float64).astype(np.float32)


def loop_data_count(args, spec):
    cnt, vals, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        c = int(cnt[i]) % 50
        res[i] = sum((int(vals[(i + k) % n]) >> 4) & M32 for k in range(c)) & M32
    return {2: res}


def loop_param_count(args, spec):
    a, out, m, n = args
    m, n = int(m[0]), int(n[0])
    i = np.arange(n)
    acc = a[:n].copy()
    for k in range(m):
        acc = fma32(acc, np.float32(0.75), a[(i + k) & 255])
    res = out.copy()
    res[:n] = acc
    return {1: res}


def collatz(args, spec):
    a, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        x = int(a[i]) % 1000 + 1
        steps = 0
        while x != 1 and steps < 500:
            x = 3 * x + 1 if x & 1 else x >> 1
            steps += 1
        res[i] = steps
    return {1: res}


def lcg_do_while(args, spec):
    a, out, last, n = args
    n = int(n[0])
    res, lres = out.copy(), last.copy()
    for i in range(n):
        x, k = int(a[i]), 0
        while True:
            x = (x * 1103515245 + 12345) & M32
            k += 1
            if not ((x >> 28) != 0xF and k < 100):
                break
        res[i], lres[i] = k, x
    return {1: res, 2: lres}


def break_continue(args, spec):
    data, out, n = args
    n = int(n[0])
    res = out.copy()
    for i in range(n):
        s = taken = 0
        for k in range(64):
            v = int(data[(i * 7 + k) & 255])
            if v & 1:
                continue
            if v < 0 and k > 5:
                break
            s ^= v
            taken += 1
        res[2 * i], res[2 * i + 1] = s, taken
    return {1: res}


def find_first(args, spec):
    rows, thr, out, n = args
    n, thr = int(n[0]), int(thr[0])
    res = out.copy()
    r = rows[: 16 * n].reshape(n, 16)
    for i in range(n):
        hits = np.flatnonzero(r[i] > thr)
        res[i] = int(hits[0]) if hits.size else -1
    return {2: res}
