import numpy as np


def stencil3d_i32(args, spec):
    inp, out = args
    n = 8
    v = (inp >> 8).reshape(n, n, n).astype(np.int64)  # [z][y][x]
    p = np.pad(v, 1, mode="edge")
    c = p[1:-1, 1:-1, 1:-1]
    s = (
        6 * c
        - p[1:-1, 1:-1, :-2]
        - p[1:-1, 1:-1, 2:]
        - p[1:-1, :-2, 1:-1]
        - p[1:-1, 2:, 1:-1]
        - p[:-2, 1:-1, 1:-1]
        - p[2:, 1:-1, 1:-1]
    )
    return {1: s.reshape(-1).astype(np.int32)}


def grid2d_coords(args, spec):
    inp, out, rows, cols = args
    rows, cols = int(rows[0]), int(cols[0])
    bx, by = spec.block[0], spec.block[1]
    gx = spec.grid[0]
    res = out.copy()
    for r in range(rows):
        for c in range(cols):
            blk = (r // by) * gx + (c // bx)
            res[r * cols + c] = int(inp[r * cols + c]) ^ ((r << 16) | c) ^ blk
    return {1: res}
