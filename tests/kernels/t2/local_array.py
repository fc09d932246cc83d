import numpy as np

WORDS, STEPS, KEYS = 40, 64, 24
M32 = 0xFFFFFFFF


def local_scramble(args, spec):
    data, walk, out = args
    out = out.copy()
    for t in range(spec.threads * spec.ctas):
        buf = [int(v) for v in data[t * WORDS : (t + 1) * WORDS]]
        w = int(walk[t])
        k = 0
        for s in range(STEPS):
            p = w % WORDS
            q = (w >> 8) % WORDS
            buf[p] = (buf[p] + (buf[q] ^ s)) & M32
            k ^= buf[(p + q + s) % WORDS]
            w = (w * 1664525 + 1013904223) & M32
        base = t * (WORDS + 1)
        out[base : base + WORDS] = buf
        out[base + WORDS] = k
    return {2: out}


def local_sort_hist(args, spec):
    data, _, _ = args
    nthreads = spec.threads * spec.ctas
    v = data[: nthreads * KEYS].reshape(nthreads, KEYS)
    sorted_ = np.sort(v, axis=1, kind="stable").astype(np.float32)
    bins = np.clip(np.floor(v * np.float32(4.0)).astype(np.int64) + 8, 0, 15)
    hist = np.zeros((nthreads, 16), dtype=np.int32)
    for t in range(nthreads):
        hist[t] = np.bincount(bins[t], minlength=16)
    return {1: sorted_.reshape(-1), 2: hist.reshape(-1)}
