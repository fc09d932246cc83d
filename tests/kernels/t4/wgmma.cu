// Warpgroup MMA (sm_90a) through inline PTX: wgmma.mma_async with shared-memory matrix
// descriptors (no swizzle), A from registers, negated A, transposed (MN-major) B, f16 / bf16 /
// tf32 / s8 / u8 inputs; wgmma.fence, commit_group, wait_group; fence.proxy.async between the
// generic-proxy stores that fill shared memory and the async-proxy reads of wgmma.
//
// Shared-memory layout used throughout ("interleave", swizzle mode 0): the operand is cut into
// core matrices of 8 rows x 16 bytes, each stored as 128 contiguous bytes (row r at byte 16 r).
// For a K-major operand (A as M x K, B as N x K) the core matrix (i, kc) (i: 8-row group of
// M/N, kc: 16-byte chunk of K) starts at byte (i * KC + kc) * 128 with KC = K-chunks per row, so
// the descriptor's leading byte offset (between K chunks) is 128 and its stride byte offset
// (between 8-row groups) is KC * 128. Descriptor: bits 0-13 start address >> 4, 16-29 leading
// byte offset >> 4, 32-45 stride byte offset >> 4, 62-63 swizzle mode (0).
//
// Accumulator fragment (m64nN): warp w of the warpgroup, lane = 4 g + t, holds
// d[4 j + i] = D[16 w + g + 8 (i >> 1)][8 j + 2 t + (i & 1)].
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ unsigned long long desc(const void* p, unsigned lbo, unsigned sbo)
{
    return (unsigned long long)((saddr(p) >> 4) & 0x3fff) |
           ((unsigned long long)((lbo >> 4) & 0x3fff) << 16) |
           ((unsigned long long)((sbo >> 4) & 0x3fff) << 32);
}

// element offset of (row, k) in a K-major interleaved operand with `kc` 16-byte chunks per row
// and `epc` elements per 16-byte chunk
__device__ __forceinline__ int kmajor(int row, int k, int kc, int epc)
{
    return (((row >> 3) * kc + k / epc) * 8 + (row & 7)) * epc + k % epc;
}

__device__ __forceinline__ void async_smem_fence_and_sync()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
}

// D (64x16, f32) = A (64x32, f16) x B (32x16, f16): two k16 steps, the first with scale-d = 0.
extern "C" __global__ void wgmma_f16_ss(const signed char* A, const signed char* B, float* D)
{
    __shared__ __align__(128) __half sA[64 * 32];
    __shared__ __align__(128) __half sB[16 * 32];
    int tid = threadIdx.x;
    for (int i = tid; i < 64 * 32; i += 128)
        sA[kmajor(i / 32, i % 32, 4, 8)] = __int2half_rn(A[i] >> 2);      // A row-major [m][k]
    for (int i = tid; i < 32 * 16; i += 128)
        sB[kmajor(i % 16, i / 16, 4, 8)] = __int2half_rn(B[i] >> 2);      // B row-major [k][n]
    async_smem_fence_and_sync();
    float d[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int s = 0; s < 2; ++s) {
        // k chunks 2s and 2s+1: core matrices of 64 halves each
        unsigned long long da = desc(sA + 2 * s * 64, 128, 512);
        unsigned long long db = desc(sB + 2 * s * 64, 128, 512);
        int scale_d = s;                                                   // 0: D = A B
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %10, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1, 0, 0; }"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                       "+f"(d[6]), "+f"(d[7])
                     : "l"(da), "l"(db), "r"(scale_d));
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    int w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * 16 + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}

// A from registers (bf16, the mma.m16n8k16 A layout per warp: rows 16 w..16 w+15), B from
// shared memory, imm-scale-a = -1, and D preloaded from C with scale-d = 1: D = C - A B.
extern "C" __global__ void wgmma_bf16_rs(const signed char* A, const signed char* B,
                                         const float* C, float* D)
{
    __shared__ __align__(128) __nv_bfloat16 sB[8 * 16];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 16 * 8; i += 128)
        sB[kmajor(i % 8, i / 8, 2, 8)] = __float2bfloat16_rn((float)B[i]);   // B [k][n]
    unsigned a[4];
    for (int r = 0; r < 4; ++r) {
        int row = 16 * w + g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn((float)A[row * 16 + col])) |
               ((unsigned)__bfloat16_as_ushort(__float2bfloat16_rn((float)A[row * 16 + col + 1])) << 16);
    }
    float d[4];
    for (int i = 0; i < 4; ++i)
        d[i] = floorf(C[(16 * w + g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] * 100.0f);
    async_smem_fence_and_sync();
    unsigned long long db = desc(sB, 128, 256);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, -1, 1, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int i = 0; i < 4; ++i)
        D[(16 * w + g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

// tf32 m64n8k8 (A, B K-major: 4 tf32 per 16-byte chunk, 2 chunks per row).
extern "C" __global__ void wgmma_tf32_ss(const signed char* A, const signed char* B, float* D)
{
    __shared__ __align__(128) float sA[64 * 8];
    __shared__ __align__(128) float sB[8 * 8];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 8; i += 128)
        sA[kmajor(i / 8, i % 8, 2, 4)] = (float)A[i] * 0.25f;
    for (int i = tid; i < 8 * 8; i += 128)
        sB[kmajor(i % 8, i / 8, 2, 4)] = (float)B[i];
    async_smem_fence_and_sync();
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                 "{%0,%1,%2,%3}, %4, %5, 0, 1, 1;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(desc(sA, 128, 256)), "l"(desc(sB, 128, 256)));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int i = 0; i < 4; ++i)
        D[(16 * w + g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

// s8 x s8 and u8 x s8 m64n8k32 -> s32 (16 int8 per chunk, 2 chunks per row); two commit
// groups, waited for with wait_group 1 and then 0.
extern "C" __global__ void wgmma_s8_ss(const signed char* A, const signed char* B, int* D,
                                       int* Du)
{
    __shared__ __align__(128) signed char sA[64 * 32];
    __shared__ __align__(128) signed char sB[8 * 32];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128)
        sA[kmajor(i / 32, i % 32, 2, 16)] = A[i];
    for (int i = tid; i < 32 * 8; i += 128)
        sB[kmajor(i % 8, i / 8, 2, 16)] = B[i];
    async_smem_fence_and_sync();
    int d[4] = {0, 0, 0, 0}, e[4] = {0, 0, 0, 0};
    unsigned long long da = desc(sA, 128, 256), db = desc(sB, 128, 256);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%0,%1,%2,%3}, %4, %5, 0;"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8 {%0,%1,%2,%3}, %4, %5, 0;"
                 : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3]) : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    for (int i = 0; i < 4; ++i)
        D[(16 * w + g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int i = 0; i < 4; ++i)
        Du[(16 * w + g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = e[i];
}

// B given MN-major (imm-trans-b = 1): core matrices of 8 k-rows x 8 n (16 bytes), core matrix
// (nc, kg) (nc: 8-column group of N, kg: 8-row group of K) at byte (nc * 2 + kg) * 128, so the
// leading byte offset (between K groups) is 128 and the stride byte offset (between N groups)
// is 256. m64n16k16 f16.
extern "C" __global__ void wgmma_f16_trans_b(const signed char* A, const signed char* B, float* D)
{
    __shared__ __align__(128) __half sA[64 * 16];
    __shared__ __align__(128) __half sB[16 * 16];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 16; i += 128)
        sA[kmajor(i / 16, i % 16, 2, 8)] = __int2half_rn(A[i]);
    for (int i = tid; i < 16 * 16; i += 128) {
        int k = i / 16, n = i % 16;                                        // B row-major [k][n]
        sB[((n >> 3) * 2 + (k >> 3)) * 64 + (k & 7) * 8 + (n & 7)] = __int2half_rn(B[i]);
    }
    async_smem_fence_and_sync();
    float d[8];
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 0, 1, 1, 0, 1;"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]),
                   "=f"(d[6]), "=f"(d[7])
                 : "l"(desc(sA, 128, 256)), "l"(desc(sB, 128, 256)));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * 16 + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}
