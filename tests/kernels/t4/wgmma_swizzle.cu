// wgmma.mma_async with 128-byte-swizzled shared-memory operands (descriptor swizzle mode 1),
// the layout TMA produces for CU_TENSOR_MAP_SWIZZLE_128B: K-major rows of 128 bytes (64 halves);
// byte b of the unswizzled tile lives at b ^ (((b >> 7) & 7) << 4), i.e. the 16-byte chunks of
// row r are permuted by XOR with r % 8, inside 1024-byte aligned atoms of 8 rows. Descriptor:
// stride byte offset 1024 (between 8-row groups), leading byte offset unused (1), and each k16
// step advances the start address by 32 bytes inside the atom. D (64x8) = A (64x64) x B (64x8).
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ int swz(int row, int k)          // f16 element index
{
    int byte = row * 128 + k * 2;
    return (byte ^ (((byte >> 7) & 7) << 4)) >> 1;
}

__device__ __forceinline__ unsigned long long desc_sw128(unsigned addr)
{
    return (unsigned long long)((addr >> 4) & 0x3fff) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

extern "C" __global__ void wgmma_swizzle(const signed char* A, const signed char* B, float* D)
{
    __shared__ __align__(1024) __half sA[64 * 64];
    __shared__ __align__(1024) __half sB[8 * 64];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 64; i += 128)
        sA[swz(i / 64, i % 64)] = __int2half_rn(A[i] >> 1);        // A row-major [m][k]
    for (int i = tid; i < 64 * 8; i += 128)
        sB[swz(i % 8, i / 8)] = __int2half_rn(B[i] >> 1);          // B row-major [k][n]
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        unsigned long long da = desc_sw128(saddr(sA) + 32 * s);
        unsigned long long db = desc_sw128(saddr(sB) + 32 * s);
        asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                     "{%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "l"(da), "l"(db));
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int i = 0; i < 4; ++i)
        D[(16 * w + g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}
