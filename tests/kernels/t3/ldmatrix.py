import numpy as np

STRIDE = 16


def _matrix(sm, m):
    """8x8 matrix m: row r lives at line m*8 + (3r mod 8), element offset 8 for odd r."""
    rows = []
    for r in range(8):
        off = (m * 8 + ((r * 3) & 7)) * STRIDE + (8 if r & 1 else 0)
        rows.append(sm[off : off + 8])
    return np.array(rows, dtype=np.uint32)


def _frag(mat, trans):
    lane = np.arange(32)
    rr, cc = lane // 4, 2 * (lane % 4)
    if trans:
        lo, hi = mat[cc, rr], mat[cc + 1, rr]
    else:
        lo, hi = mat[rr, cc], mat[rr, cc + 1]
    return (lo | (hi << 16)).astype(np.uint32)


def ldmatrix(args, spec):
    sm, _ = args
    mats = [_matrix(sm, m) for m in range(4)]
    rows = []
    for trans in (False, True):
        for count in (1, 2, 4):
            rows += [_frag(mats[j], trans) for j in range(count)]
    return {1: np.concatenate(rows)}


def ldmatrix_mma(args, spec):
    a, b, _ = args
    d = a.astype(np.float64).reshape(16, 16) @ b.astype(np.float64).reshape(16, 8)
    return {2: d.astype(np.float32).reshape(-1)}
