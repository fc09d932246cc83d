import numpy as np

M32 = 0xFFFFFFFF


def mbarrier_phases(args, spec):
    src, _ = args
    out = np.zeros(256, dtype=np.uint32)
    acc = [0] * 128
    for r in range(4):
        live = 128 if r < 2 else 64
        writers = range(128) if r < 2 else range(64)
        data = [0] * 128
        for t in writers:
            data[t] = (int(src[r * 128 + t]) * (r + 1)) & M32
        if r == 1:
            for t in range(64, 128):
                out[t] = acc[t]  # arrive_drop, then leave
        readers = range(128) if r == 0 else range(64)
        for t in readers:
            acc[t] = (acc[t] * 7 + data[(t + 7 * r + 1) % live]) & M32
    for t in range(64):
        out[t] = acc[t]
        out[128 + t] = 0b101  # tx phase 1 complete, tx phase 2 pending, bar's last phase complete
    return {1: out}
