import numpy as np


def cluster_st_remote(args, spec):
    x, _ = args
    res = np.zeros(64 * spec.grid[0], dtype=np.uint32)
    t = np.arange(64)
    for b in range(spec.grid[0]):
        rank = b % 4
        dst_cta = b - rank + (rank + 1) % 4
        res[dst_cta * 64 + (t * 5) % 64] = x[b * 64 + t] + np.uint32(rank)
    return {1: res}


def cluster_async_tx(args, spec):
    x, out, s = args
    res = out.copy()
    for i in range(256):
        res[i ^ 7] = x[i]
    s = s.copy()
    s[0] = int(x[:256].astype(np.uint64).sum()) & 0xFFFFFFFF
    s[1] = int((x[:256] >> np.uint32(4)).astype(np.uint64).sum()) & 0xFFFFFFFF
    return {1: res, 2: s}


def cluster_remote_arrive(args, spec):
    x, out = args
    res = out.copy()
    for c in range(spec.grid[0] // 4):
        v = [x[(4 * c + r) * 64 : (4 * c + r) * 64 + 64].astype(np.uint64) * r for r in (1, 2, 3)]
        res[c * 64 : c * 64 + 64] = (v[0] + v[1] * 3 + v[2] * 5) & 0xFFFFFFFF
    return {1: res}


def cluster_3d(args, spec):
    info, xch = args
    info, xch = info.copy(), xch.copy()
    gx, gy, gz = spec.grid
    for bz in range(gz):
        for by in range(gy):
            for bx in range(gx):
                cta = bx + 4 * (by + 2 * bz)
                cx, cy, cz = bx % 2, by % 2, bz % 2
                rank = cx + 2 * cy + 4 * cz
                info[cta * 16 : cta * 16 + 14] = [
                    cx,
                    cy,
                    cz,
                    2,
                    2,
                    2,
                    bx // 2,
                    by // 2,
                    bz // 2,
                    gx // 2,
                    gy // 2,
                    gz // 2,
                    8,
                    rank,
                ]
                for t in range(8):  # rank t of the same cluster
                    ox, oy, oz = (bx - cx) + t % 2, (by - cy) + (t // 2) % 2, (bz - cz) + t // 4
                    xch[cta * 8 + t] = (ox + 4 * (oy + 2 * oz)) * 100 + rank
    return {0: info, 1: xch}
