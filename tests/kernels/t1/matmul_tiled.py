import numpy as np

F = np.float32


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


def matmul_f32(args, spec):
    A, B, C, M, N, K = args
    M, N, K = int(M[0]), int(N[0]), int(K[0])
    a = A[: M * K].reshape(M, K)
    b = B[: K * N].reshape(K, N)
    kp = -(-K // 16) * 16
    a = np.pad(a, ((0, 0), (0, kp - K)))
    b = np.pad(b, ((0, kp - K), (0, 0)))
    acc = np.zeros((M, N), dtype=F)
    for k in range(kp):  # zero-padded taps are fma(0, 0, acc) == acc, kept for fidelity
        acc = fma32(a[:, k : k + 1], b[k : k + 1, :], acc)
    res = C.copy()
    res[: M * N] = acc.reshape(-1)
    return {2: res}


def matmul_i32(args, spec):
    A, B, C, M, N, K = args
    M, N, K = int(M[0]), int(N[0]), int(K[0])
    a = A[: M * K].reshape(M, K).view(np.uint32).astype(np.uint64)
    b = B[: K * N].reshape(K, N).view(np.uint32).astype(np.uint64)
    acc = np.zeros((M, N), dtype=np.uint64)
    for k in range(K):
        acc = (acc + (a[:, k : k + 1] * b[k : k + 1, :]) % (1 << 32)) % (1 << 32)
    res = C.copy()
    res[: M * N] = acc.astype(np.uint32).view(np.int32).reshape(-1)
    return {2: res}
