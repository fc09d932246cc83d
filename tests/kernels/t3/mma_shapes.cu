// mma.sync shapes and types beyond t3/mma_sync: m16n8k8 bf16, m16n8k16 s8 with .satfinite,
// m16n8k32 s4, m16n8k64 u4 x s4 and m16n8k256 b1 (.and.popc / .xor.popc). One warp each; lanes
// build fragments from global memory with the PTX ISA's layouts (g = lane / 4, t = lane % 4;
// sub-byte elements packed lowest index in the lowest bits). C/D: c_i at row g + 8 (i >> 1),
// column 2t + (i & 1).
#include <cuda_bf16.h>

#define C_ROW(i) (g + 8 * ((i) >> 1))
#define C_COL(i) (2 * t + ((i) & 1))

__device__ __forceinline__ unsigned pack4(const signed char* p, int stride)
{
    return (unsigned)(unsigned char)p[0] | ((unsigned)(unsigned char)p[stride] << 8) |
           ((unsigned)(unsigned char)p[2 * stride] << 16) |
           ((unsigned)(unsigned char)p[3 * stride] << 24);
}

__device__ __forceinline__ unsigned pack8_nibbles(const signed char* p, int stride)
{
    unsigned r = 0;
    for (int j = 0; j < 8; ++j)
        r |= ((unsigned)p[j * stride] & 0xfu) << (4 * j);
    return r;
}

// D (16x8 f32) = A (16x8 bf16, row-major) * B (8x8 bf16, [k][n]); bf16 data as bit patterns.
extern "C" __global__ void mma_m16n8k8_bf16(const unsigned short* A, const unsigned short* B,
                                            const float* C, float* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[2], b;
    float c[4], d[4];
    for (int r = 0; r < 2; ++r)            // a0a1: row g, a2a3: row g + 8; cols 2t, 2t + 1
        a[r] = A[(g + 8 * r) * 8 + 2 * t] | ((unsigned)A[(g + 8 * r) * 8 + 2 * t + 1] << 16);
    b = B[(2 * t) * 8 + g] | ((unsigned)B[(2 * t + 1) * 8 + g] << 16);
    for (int i = 0; i < 4; ++i)
        c[i] = C[C_ROW(i) * 8 + C_COL(i)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; ++i)
        D[C_ROW(i) * 8 + C_COL(i)] = d[i];
}

// D = A (16x16 s8) * B (16x8 s8) + C, wrapping and saturating (.satfinite) accumulation.
extern "C" __global__ void mma_m16n8k16_s8_sat(const signed char* A, const signed char* B,
                                               const int* C, int* D, int* Ds)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[2], b;
    int c[4], d[4], e[4];
    for (int r = 0; r < 2; ++r)            // a0: row g, a1: row g + 8; cols 4t .. 4t + 3
        a[r] = pack4(A + (g + 8 * r) * 16 + 4 * t, 1);
    b = pack4(B + (4 * t) * 8 + g, 8);     // k = 4t .. 4t + 3, n = g
    for (int i = 0; i < 4; ++i)
        c[i] = C[C_ROW(i) * 8 + C_COL(i)];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(e[0]), "=r"(e[1]), "=r"(e[2]), "=r"(e[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; ++i) {
        D[C_ROW(i) * 8 + C_COL(i)] = d[i];
        Ds[C_ROW(i) * 8 + C_COL(i)] = e[i];
    }
}

// D = A (16x32 s4) * B (32x8 s4) + C; A and B hold one 4-bit value per byte (low nibble).
extern "C" __global__ void mma_m16n8k32_s4(const signed char* A, const signed char* B,
                                           const int* C, int* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[2], b;
    int c[4], d[4];
    for (int r = 0; r < 2; ++r)            // a0: row g, a1: row g + 8; cols 8t .. 8t + 7
        a[r] = pack8_nibbles(A + (g + 8 * r) * 32 + 8 * t, 1);
    b = pack8_nibbles(B + (8 * t) * 8 + g, 8);
    for (int i = 0; i < 4; ++i)
        c[i] = C[C_ROW(i) * 8 + C_COL(i)];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; ++i)
        D[C_ROW(i) * 8 + C_COL(i)] = d[i];
}

// D = A (16x64 u4) * B (64x8 s4) + C.
extern "C" __global__ void mma_m16n8k64_u4s4(const signed char* A, const signed char* B,
                                             const int* C, int* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    int c[4], d[4];
    for (int r = 0; r < 4; ++r) {          // row g (+8 for r odd), cols 8t (+32 for r >= 2)
        int row = g + 8 * (r & 1), col = 8 * t + 32 * (r >> 1);
        a[r] = pack8_nibbles(A + row * 64 + col, 1);
    }
    for (int r = 0; r < 2; ++r)            // k = 8t (+32 for r = 1), n = g
        b[r] = pack8_nibbles(B + (8 * t + 32 * r) * 8 + g, 8);
    for (int i = 0; i < 4; ++i)
        c[i] = C[C_ROW(i) * 8 + C_COL(i)];
    asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; ++i)
        D[C_ROW(i) * 8 + C_COL(i)] = d[i];
}

// b1: A is 16 rows of 256 bits (8 words), Bt 8 columns of 256 bits (B's column n = Bt[n]);
// D = C + popc(A[m] & B[:, n]) and popc(A[m] ^ B[:, n]).
extern "C" __global__ void mma_m16n8k256_b1(const unsigned* A, const unsigned* Bt, const int* C,
                                            int* Dand, int* Dxor)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    int c[4], d[4], e[4];
    for (int r = 0; r < 4; ++r)            // row g (+8 for r odd), bits 32t (+128 for r >= 2)
        a[r] = A[(g + 8 * (r & 1)) * 8 + t + 4 * (r >> 1)];
    for (int r = 0; r < 2; ++r)
        b[r] = Bt[g * 8 + t + 4 * r];
    for (int i = 0; i < 4; ++i)
        c[i] = C[C_ROW(i) * 8 + C_COL(i)];
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(e[0]), "=r"(e[1]), "=r"(e[2]), "=r"(e[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; ++i) {
        Dand[C_ROW(i) * 8 + C_COL(i)] = d[i];
        Dxor[C_ROW(i) * 8 + C_COL(i)] = e[i];
    }
}
