import numpy as np


def sregs_3d(args, spec):
    (out,) = args
    gx, gy, gz = spec.grid
    bx, by, bz = spec.block
    res = out.copy()
    nthreads = bx * by * bz
    for cz in range(gz):
        for cy in range(gy):
            for cx in range(gx):
                lb = cx + gx * (cy + gy * cz)
                for tz in range(bz):
                    for ty in range(by):
                        for tx in range(bx):
                            lt = tx + bx * (ty + by * tz)
                            g = lb * nthreads + lt
                            res[12 * g : 12 * g + 12] = [tx, ty, tz, cx, cy, cz, bx, by, bz, gx, gy, gz]
    return {0: res}


def sregs_lane(args, spec):
    out, hw = args
    nt = spec.block[0]
    res = out.copy()
    for b in range(spec.grid[0]):
        for t in range(nt):
            g = b * nt + t
            lane = t % 32
            warp_threads = min(32, nt - (t // 32) * 32)
            active = (1 << warp_threads) - 1
            le = (2 << lane) - 1
            lt = (1 << lane) - 1
            res[8 * g : 8 * g + 8] = [
                lane,
                1 << lane,
                lt,
                le,
                ~le & 0xFFFFFFFF,
                ~lt & 0xFFFFFFFF,
                active,
                32,
            ]
    # hw (%warpid, %nwarpid, %smid) is hardware-dependent and not compared ("check": false).
    return {0: res, 1: hw.copy()}
