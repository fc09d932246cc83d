// Warp-level mma.sync through inline PTX: f16 (f32 and f16 accumulators), bf16, tf32, s8/u8,
// f64 (DMMA) and the sm_75 m8n8k16 integer shape. One warp per kernel; each lane builds its
// fragments from global memory with the PTX ISA's fragment layouts (groupID = lane / 4,
// tig = lane % 4). Integer-valued data keeps every partial sum exact, so any accumulation order
// gives the same bits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned pack_h2(__half lo, __half hi)
{
    return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}

__device__ __forceinline__ unsigned pack_b2(float lo, float hi)
{
    return (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(lo)) |
           ((unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(hi)) << 16);
}

__device__ __forceinline__ unsigned pack_s8(const signed char* p, int stride)
{
    return (unsigned)(unsigned char)p[0] | ((unsigned)(unsigned char)p[stride] << 8) |
           ((unsigned)(unsigned char)p[2 * stride] << 16) |
           ((unsigned)(unsigned char)p[3 * stride] << 24);
}

// D(16x8,f32) = A(16x16,f16, row-major) * B(16x8,f16, [k][n]) + C(16x8,f32, [m][n])
extern "C" __global__ void mma_m16n8k16_f16_f32(const __half* A, const __half* B, const float* C,
                                                float* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    float c[4], d[4];
    for (int r = 0; r < 4; ++r) {          // a_{2r}, a_{2r+1}: rows g (+8 for r odd), cols (+8 for r >= 2)
        int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = pack_h2(A[row * 16 + col], A[row * 16 + col + 1]);
    }
    for (int r = 0; r < 2; ++r) {          // b_{2r}, b_{2r+1}: k = 2t (+8 for r = 1), n = g
        int k = 2 * t + 8 * r;
        b[r] = pack_h2(B[k * 8 + g], B[(k + 1) * 8 + g]);
    }
    for (int i = 0; i < 4; ++i)            // c_i: row g (+8 for i >= 2), col 2t + (i & 1)
        c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; ++i)
        D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

// f16 accumulator: D(16x8,f16) = A(16x16) * B(16x8) + C, all small integers (from int8 >> 4).
extern "C" __global__ void mma_m16n8k16_f16_f16(const signed char* A, const signed char* B,
                                                const signed char* C, __half* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2], c[2], d[2];
    for (int r = 0; r < 4; ++r) {
        int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = pack_h2(__int2half_rn(A[row * 16 + col] >> 4), __int2half_rn(A[row * 16 + col + 1] >> 4));
    }
    for (int r = 0; r < 2; ++r) {
        int k = 2 * t + 8 * r;
        b[r] = pack_h2(__int2half_rn(B[k * 8 + g] >> 4), __int2half_rn(B[(k + 1) * 8 + g] >> 4));
    }
    for (int r = 0; r < 2; ++r) {          // c0c1 row g, c2c3 row g+8; cols 2t, 2t+1
        int row = g + 8 * r;
        c[r] = pack_h2(__int2half_rn(C[row * 8 + 2 * t] >> 4), __int2half_rn(C[row * 8 + 2 * t + 1] >> 4));
    }
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
    for (int r = 0; r < 2; ++r) {
        int row = g + 8 * r;
        D[row * 8 + 2 * t] = __ushort_as_half((unsigned short)d[r]);
        D[row * 8 + 2 * t + 1] = __ushort_as_half((unsigned short)(d[r] >> 16));
    }
}

// m16n8k8 f16 -> f32: A 16x8 (a0a1 row g, a2a3 row g+8; cols 2t, 2t+1), B 8x8 (k = 2t, 2t+1).
extern "C" __global__ void mma_m16n8k8_f16_f32(const signed char* A, const signed char* B,
                                               float* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[2], b;
    float d[4];
    for (int r = 0; r < 2; ++r) {
        int row = g + 8 * r;
        a[r] = pack_h2(__int2half_rn(A[row * 8 + 2 * t]), __int2half_rn(A[row * 8 + 2 * t + 1]));
    }
    b = pack_h2(__int2half_rn(B[(2 * t) * 8 + g]), __int2half_rn(B[(2 * t + 1) * 8 + g]));
    float z = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%7,%7,%7};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b), "f"(z));
    for (int i = 0; i < 4; ++i)
        D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

// bf16: same fragment layout as f16 m16n8k16.
extern "C" __global__ void mma_m16n8k16_bf16_f32(const signed char* A, const signed char* B,
                                                 const float* C, float* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    float c[4], d[4];
    for (int r = 0; r < 4; ++r) {
        int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = pack_b2((float)A[row * 16 + col], (float)A[row * 16 + col + 1]);
    }
    for (int r = 0; r < 2; ++r) {
        int k = 2 * t + 8 * r;
        b[r] = pack_b2((float)B[k * 8 + g], (float)B[(k + 1) * 8 + g]);
    }
    for (int i = 0; i < 4; ++i)
        c[i] = floorf(C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] * 64.0f);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; ++i)
        D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

// tf32 m16n8k8: A 16x8 (a0 row g col t, a1 row g+8 col t, a2 row g col t+4, a3 row g+8 col t+4),
// B 8x8 (b0 k = t, b1 k = t+4; n = g); the operands are rounded with cvt.rna.tf32.f32.
extern "C" __global__ void mma_m16n8k8_tf32_f32(const signed char* A, const signed char* B,
                                                float* D, float* Dk4)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    float d[4];
    for (int r = 0; r < 4; ++r) {
        int row = g + 8 * (r & 1), col = t + 4 * (r >> 1);
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a[r]) : "f"((float)A[row * 8 + col] * 0.5f));
    }
    for (int r = 0; r < 2; ++r)
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(b[r]) : "f"((float)B[(t + 4 * r) * 8 + g]));
    float z = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(z));
    for (int i = 0; i < 4; ++i)
        D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
    // m16n8k4: A 16x4 (a0 row g, a1 row g+8; col t), B 4x8 (k = t, n = g): the first 4 columns.
    float e[4];
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%7,%7,%7};"
                 : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(z));
    for (int i = 0; i < 4; ++i)
        Dk4[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = e[i];
}

// s8 x s8 and u8 x s8 m16n8k32 -> s32: A 16x32 (reg r: row g (+8 for r odd), bytes at
// cols 4t..4t+3 (+16 for r >= 2)), B 32x8 (reg r: k = 4t..4t+3 (+16 for r = 1), n = g).
extern "C" __global__ void mma_m16n8k32_s8_s32(const signed char* A, const signed char* B,
                                               const int* C, int* D, int* Du)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a[4], b[2];
    int c[4], d[4], e[4];
    for (int r = 0; r < 4; ++r) {
        int row = g + 8 * (r & 1), col = 4 * t + 16 * (r >> 1);
        a[r] = pack_s8(A + row * 32 + col, 1);
    }
    for (int r = 0; r < 2; ++r)
        b[r] = pack_s8(B + (4 * t + 16 * r) * 8 + g, 8);
    for (int i = 0; i < 4; ++i)
        c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] >> 4;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(e[0]), "=r"(e[1]), "=r"(e[2]), "=r"(e[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; ++i) {
        D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
        Du[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = e[i];
    }
}

// f64 m8n8k4 (DMMA): a0 = A[g][t], b0 = B[t][g], c0/c1 = C[g][2t], C[g][2t+1].
extern "C" __global__ void mma_m8n8k4_f64(const signed char* A, const signed char* B,
                                         const double* C, double* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    double a = (double)A[g * 4 + t] * 0.25, b = (double)B[t * 8 + g];
    double c0 = floor(C[g * 8 + 2 * t] * 1024.0), c1 = floor(C[g * 8 + 2 * t + 1] * 1024.0);
    double d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d0), "=d"(d1)
                 : "d"(a), "d"(b), "d"(c0), "d"(c1));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
}

// The Turing integer shape m8n8k16 s8: A 8x16 (row g, cols 4t..4t+3), B 16x8 (k = 4t.., n = g).
extern "C" __global__ void mma_m8n8k16_s8_s32(const signed char* A, const signed char* B, int* D)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned a = pack_s8(A + g * 16 + 4 * t, 1), b = pack_s8(B + (4 * t) * 8 + g, 8);
    int d0, d1, z = 0;
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%4,%4};"
                 : "=r"(d0), "=r"(d1)
                 : "r"(a), "r"(b), "r"(z));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
}
