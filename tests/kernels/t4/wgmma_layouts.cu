// wgmma.mma_async operand layouts (sm_90a): f16 operands in shared memory through matrix
// descriptors, K-major and MN-major (transposed: tnspA/tnspB = 1) in each swizzle mode. D (64 x N,
// f32) = A (64 x 32) x B (32 x N), two k16 steps, N = W / 2 for swizzle width W bytes.
//
// Layouts (units: bytes; E = W / 2 f16 elements per swizzle row; swizzle: the 16-byte chunk
// index, address bits 4.., is XORed with address bits 7.. (3 bits for 128B, 2 for 64B, 1 for 32B),
// on absolute shared addresses of atoms of 8 rows x W bytes aligned to 8 W):
//  K-major (A as M x K, B as N x K): element (r, k) of k-chunk c = k / E at
//      c CH + (r / 8) SBO + (r % 8) W + 2 (k % E), SBO = 8 W, CH = (rows / 8) SBO;
//      descriptor of k16 step s: start = base + (16 s / E) CH + 2 (16 s % E), LBO unused (1).
//  MN-major (A as K x M, B as K x N): element (mn, k) at
//      (mn / E) LBO + (k / 8) SBO + (k % 8) W + 2 (mn % E), SBO = 8 W, LBO = 4 SBO;
//      descriptor of k16 step s: start = base + 2 s SBO.
//  MN-major without swizzle (core matrices of 8 x 16 bytes): element (mn, k) at
//      (mn / 8) SBO + (k / 8) LBO + (k % 8) 16 + 2 (mn % 8), LBO = 128, SBO = 4 LBO.
// Accumulator fragment: lane 4g + t of warp w holds d[4j + i] = D[16w + g + 8(i / 2)][8j + 2t + i % 2].
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo,
                                                   unsigned mode)
{
    return (unsigned long long)((addr >> 4) & 0x3fff) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32) | ((unsigned long long)mode << 62);
}

// byte offset -> swizzled byte offset, for an atom-aligned base
__device__ __forceinline__ int swz(int byte, int w)
{
    int mask = w / 16 - 1;
    return byte ^ (((byte >> 7) & mask) << 4);
}

__device__ __forceinline__ int kmajor_off(int r, int k, int w, int rows)
{
    int e = w / 2, sbo = 8 * w, ch = rows / 8 * sbo;
    return (k / e) * ch + (r / 8) * sbo + (r % 8) * w + 2 * (k % e);
}

__device__ __forceinline__ int mnmajor_off(int mn, int k, int w)
{
    int e = w / 2, sbo = 8 * w, lbo = 4 * sbo;
    return (mn / e) * lbo + (k / 8) * sbo + (k % 8) * w + 2 * (mn % e);
}

__device__ __forceinline__ int mnmajor_none_off(int mn, int k)
{
    return (mn / 8) * 512 + (k / 8) * 128 + (k % 8) * 16 + 2 * (mn % 8);
}

__device__ __forceinline__ void fence_wait()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

#define NOSWZ(b, w) (b)

__device__ __forceinline__ void wgmma_n16_t00(float* d, unsigned long long da,
                                                    unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1, 0, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db));
}
__device__ __forceinline__ void wgmma_n16_t11(float* d, unsigned long long da,
                                                    unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1, 1, 1;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db));
}
__device__ __forceinline__ void wgmma_n32_t00(float* d, unsigned long long da,
                                                    unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, 1, 1, 1, 0, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(da), "l"(db));
}
__device__ __forceinline__ void wgmma_n32_t11(float* d, unsigned long long da,
                                                    unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, 1, 1, 1, 1, 1;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(da), "l"(db));
}
__device__ __forceinline__ void wgmma_n64_t01(float* d, unsigned long long da,
                                                    unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, 1, 1, 1, 0, 1;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db));
}
__device__ __forceinline__ void wgmma_n64_t11(float* d, unsigned long long da,
                                                    unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, 1, 1, 1, 1, 1;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db));
}

// K-major A and B, 64-byte swizzle (a k16 step is half a swizzle row)
extern "C" __global__ void wgmma_k_sw64(const signed char* A, const signed char* B, float* D)
{
    const int W = 64, N = 32;
    __shared__ __align__(1024) __half sA[64 * 64];  // K-major, 128B swizzle: 128-byte rows
    __shared__ __align__(1024) __half sB[64 * N];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128) {
        int m = i / 32, k = i % 32;
        sA[swz(kmajor_off(m, k, W, 64), W) / 2] = __int2half_rn(A[i] >> 1);
    }
    for (int i = tid; i < 32 * N; i += 128) {
        int k = i / N, nn = i % N;
        sB[swz(kmajor_off(nn, k, W, N), W) / 2] = __int2half_rn(B[i] >> 1);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i)
        d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 2; ++s) {
        unsigned long long da = desc(saddr(sA) + (16 * s / (W / 2)) * (64 / 8 * 8 * W) + 2 * (16 * s % (W / 2)), 16, 8 * W, 2);
        unsigned long long db = desc(saddr(sB) + (16 * s / (W / 2)) * (N / 8 * 8 * W) + 2 * (16 * s % (W / 2)), 16, 8 * W, 2);
        wgmma_n32_t00(d, da, db);
    }
    fence_wait();
    for (int j = 0; j < N / 8; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * N + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}

// K-major A and B, 32-byte swizzle (a k16 step is a whole swizzle row)
extern "C" __global__ void wgmma_k_sw32(const signed char* A, const signed char* B, float* D)
{
    const int W = 32, N = 16;
    __shared__ __align__(1024) __half sA[64 * 64];  // K-major, 128B swizzle: 128-byte rows
    __shared__ __align__(1024) __half sB[64 * N];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128) {
        int m = i / 32, k = i % 32;
        sA[swz(kmajor_off(m, k, W, 64), W) / 2] = __int2half_rn(A[i] >> 1);
    }
    for (int i = tid; i < 32 * N; i += 128) {
        int k = i / N, nn = i % N;
        sB[swz(kmajor_off(nn, k, W, N), W) / 2] = __int2half_rn(B[i] >> 1);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i)
        d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 2; ++s) {
        unsigned long long da = desc(saddr(sA) + (16 * s / (W / 2)) * (64 / 8 * 8 * W) + 2 * (16 * s % (W / 2)), 16, 8 * W, 3);
        unsigned long long db = desc(saddr(sB) + (16 * s / (W / 2)) * (N / 8 * 8 * W) + 2 * (16 * s % (W / 2)), 16, 8 * W, 3);
        wgmma_n16_t00(d, da, db);
    }
    fence_wait();
    for (int j = 0; j < N / 8; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * N + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}

// MN-major (transposed) A and B, 128-byte swizzle
extern "C" __global__ void wgmma_mn_sw128(const signed char* A, const signed char* B, float* D)
{
    const int W = 128, N = 64;
    __shared__ __align__(1024) __half sA[64 * 64];  // K-major, 128B swizzle: 128-byte rows
    __shared__ __align__(1024) __half sB[64 * N];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128) {
        int m = i / 32, k = i % 32;
        sA[swz(mnmajor_off(m, k, W), W) / 2] = __int2half_rn(A[i] >> 1);
    }
    for (int i = tid; i < 32 * N; i += 128) {
        int k = i / N, nn = i % N;
        sB[swz(mnmajor_off(nn, k, W), W) / 2] = __int2half_rn(B[i] >> 1);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i)
        d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 2; ++s) {
        unsigned long long da = desc(saddr(sA) + 2 * s * 8 * W, 4 * 8 * W, 8 * W, 1);
        unsigned long long db = desc(saddr(sB) + 2 * s * 8 * W, 4 * 8 * W, 8 * W, 1);
        wgmma_n64_t11(d, da, db);
    }
    fence_wait();
    for (int j = 0; j < N / 8; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * N + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}

// MN-major (transposed) A and B, 64-byte swizzle (A spans two MN atoms)
extern "C" __global__ void wgmma_mn_sw64(const signed char* A, const signed char* B, float* D)
{
    const int W = 64, N = 32;
    __shared__ __align__(1024) __half sA[64 * 64];  // K-major, 128B swizzle: 128-byte rows
    __shared__ __align__(1024) __half sB[64 * N];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128) {
        int m = i / 32, k = i % 32;
        sA[swz(mnmajor_off(m, k, W), W) / 2] = __int2half_rn(A[i] >> 1);
    }
    for (int i = tid; i < 32 * N; i += 128) {
        int k = i / N, nn = i % N;
        sB[swz(mnmajor_off(nn, k, W), W) / 2] = __int2half_rn(B[i] >> 1);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i)
        d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 2; ++s) {
        unsigned long long da = desc(saddr(sA) + 2 * s * 8 * W, 4 * 8 * W, 8 * W, 2);
        unsigned long long db = desc(saddr(sB) + 2 * s * 8 * W, 4 * 8 * W, 8 * W, 2);
        wgmma_n32_t11(d, da, db);
    }
    fence_wait();
    for (int j = 0; j < N / 8; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * N + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}

// MN-major (transposed) A and B, 32-byte swizzle (A spans four MN atoms)
extern "C" __global__ void wgmma_mn_sw32(const signed char* A, const signed char* B, float* D)
{
    const int W = 32, N = 16;
    __shared__ __align__(1024) __half sA[64 * 64];  // K-major, 128B swizzle: 128-byte rows
    __shared__ __align__(1024) __half sB[64 * N];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128) {
        int m = i / 32, k = i % 32;
        sA[swz(mnmajor_off(m, k, W), W) / 2] = __int2half_rn(A[i] >> 1);
    }
    for (int i = tid; i < 32 * N; i += 128) {
        int k = i / N, nn = i % N;
        sB[swz(mnmajor_off(nn, k, W), W) / 2] = __int2half_rn(B[i] >> 1);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i)
        d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 2; ++s) {
        unsigned long long da = desc(saddr(sA) + 2 * s * 8 * W, 4 * 8 * W, 8 * W, 3);
        unsigned long long db = desc(saddr(sB) + 2 * s * 8 * W, 4 * 8 * W, 8 * W, 3);
        wgmma_n16_t11(d, da, db);
    }
    fence_wait();
    for (int j = 0; j < N / 8; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * N + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}

// K-major A, MN-major B, 128-byte swizzle (the layout of a row-major B, as Triton makes it)
extern "C" __global__ void wgmma_k_mn_sw128(const signed char* A, const signed char* B, float* D)
{
    const int W = 128, N = 64;
    __shared__ __align__(1024) __half sA[64 * 64];  // K-major, 128B swizzle: 128-byte rows
    __shared__ __align__(1024) __half sB[64 * N];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128) {
        int m = i / 32, k = i % 32;
        sA[swz(kmajor_off(m, k, W, 64), W) / 2] = __int2half_rn(A[i] >> 1);
    }
    for (int i = tid; i < 32 * N; i += 128) {
        int k = i / N, nn = i % N;
        sB[swz(mnmajor_off(nn, k, W), W) / 2] = __int2half_rn(B[i] >> 1);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i)
        d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 2; ++s) {
        unsigned long long da = desc(saddr(sA) + (16 * s / (W / 2)) * (64 / 8 * 8 * W) + 2 * (16 * s % (W / 2)), 16, 8 * W, 1);
        unsigned long long db = desc(saddr(sB) + 2 * s * 8 * W, 4 * 8 * W, 8 * W, 1);
        wgmma_n64_t01(d, da, db);
    }
    fence_wait();
    for (int j = 0; j < N / 8; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * N + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}

// MN-major A and B without swizzle (core matrices)
extern "C" __global__ void wgmma_mn_none(const signed char* A, const signed char* B, float* D)
{
    const int W = 128, N = 16;
    __shared__ __align__(1024) __half sA[64 * 64];  // K-major, 128B swizzle: 128-byte rows
    __shared__ __align__(1024) __half sB[64 * N];
    int tid = threadIdx.x, w = tid >> 5, g = (tid & 31) >> 2, t = tid & 3;
    for (int i = tid; i < 64 * 32; i += 128) {
        int m = i / 32, k = i % 32;
        sA[NOSWZ(mnmajor_none_off(m, k), W) / 2] = __int2half_rn(A[i] >> 1);
    }
    for (int i = tid; i < 32 * N; i += 128) {
        int k = i / N, nn = i % N;
        sB[NOSWZ(mnmajor_none_off(nn, k), W) / 2] = __int2half_rn(B[i] >> 1);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i)
        d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < 2; ++s) {
        unsigned long long da = desc(saddr(sA) + 2 * s * 128, 128, 512, 0);
        unsigned long long db = desc(saddr(sB) + 2 * s * 128, 128, 512, 0);
        wgmma_n16_t11(d, da, db);
    }
    fence_wait();
    for (int j = 0; j < N / 8; ++j)
        for (int i = 0; i < 4; ++i)
            D[(16 * w + g + 8 * (i >> 1)) * N + 8 * j + 2 * t + (i & 1)] = d[4 * j + i];
}
