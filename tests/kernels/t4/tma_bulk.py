import numpy as np

CHUNK = 256


def tma_bulk(args, spec):
    src, _, acc = args
    dst = np.zeros(1024, dtype=np.int32)
    acc = acc.astype(np.uint64)
    i = np.arange(CHUNK)
    for b in range(2):
        out_s = np.empty(2 * CHUNK, dtype=np.int64)
        for phase in range(2):
            chunk = src[b * 2 * CHUNK + phase * CHUNK : b * 2 * CHUNK + (phase + 1) * CHUNK]
            out_s[phase * CHUNK + i] = chunk[(i + 17) % CHUNK].astype(np.int64) * 3 + phase
        out32 = out_s.astype(np.int32)  # wrap-around, as the kernel's int arithmetic
        dst[b * 2 * CHUNK : (b + 1) * 2 * CHUNK] = out32
        acc = acc + out32[:CHUNK].view(np.uint32)
    return {1: dst, 2: (acc & 0xFFFFFFFF).astype(np.uint32)}
