// Tensor TMA (sm_90a) beyond t4/tma_tensor: 1-D and 3-D tiled loads with negative and
// out-of-bounds coordinates (zero fill), a tensor reduction (cp.reduce.async.bulk.tensor add on
// int32, overlapping and partly out-of-bounds boxes), and 2-D loads through 128-, 64- and
// 32-byte swizzled tensor maps, read back through the swizzle: rows of W bytes (W the swizzle
// width), and the 16-byte chunk of shared byte a is XORed with the address bits above the
// 128-byte line, (a >> 7) % (W / 16) (CUTLASS's Swizzle<3,4,3>, <2,4,3>, <1,4,3>: the layout
// wgmma reads; with W < 128 two or four rows share one line and one XOR value).
#include <cuda.h>

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init_arm(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_wait(unsigned bar)
{
    asm volatile("{ .reg .pred p;\n"
                 "WAIT_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 "  @!p bra WAIT_%=; }" ::"r"(bar) : "memory");
}

// 1-D: a 200-element f32 tensor, boxes of 64 at x = 64 b - 16.
extern "C" __global__ void tma_1d(const __grid_constant__ CUtensorMap map, const float* src,
                                  float* out)
{
    __shared__ __align__(128) float box[64];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    unsigned b = saddr(&bar);
    if (t == 0) {
        mbar_init_arm(b, 256);
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2}], [%3];"
                     ::"r"(saddr(box)), "l"(&map), "r"(64 * (int)blockIdx.x - 16), "r"(b)
                     : "memory");
    }
    __syncthreads();
    mbar_wait(b);
    out[blockIdx.x * 64 + t] = box[t];
}

// 3-D: a 12 x 6 x 5 int32 tensor (x innermost), boxes of 8 x 4 x 2 at per-CTA coordinates.
__constant__ int coords3[4][3] = {{-2, -1, 0}, {6, 3, 1}, {8, 4, 4}, {0, 0, 2}};

extern "C" __global__ void tma_3d(const __grid_constant__ CUtensorMap map, const int* src,
                                  int* out)
{
    __shared__ __align__(128) int box[64];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    unsigned b = saddr(&bar);
    if (t == 0) {
        const int* c = coords3[blockIdx.x];
        mbar_init_arm(b, 256);
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5];"
                     ::"r"(saddr(box)), "l"(&map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(b)
                     : "memory");
    }
    __syncthreads();
    mbar_wait(b);
    out[blockIdx.x * 64 + t] = box[t];
}

// Each CTA adds a 16 x 8 int32 box (values from `vals`) into the 40 x 20 tensor over `acc` at
// x = 8 b - 4, y = 3 b - 2: boxes overlap, the first and last are partly outside.
extern "C" __global__ void tma_reduce_add(const __grid_constant__ CUtensorMap map, const int* vals,
                                          int* acc)
{
    __shared__ __align__(128) int box[128];
    int t = threadIdx.x;
    box[t] = vals[blockIdx.x * 128 + t];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
                     " [%0, {%1, %2}], [%3];"
                     ::"l"(&map), "r"(8 * (int)blockIdx.x - 4), "r"(3 * (int)blockIdx.x - 2),
                       "r"(saddr(box)) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    __syncthreads();
}

// Swizzled 2-D loads: box of (W / 4) x 8 f32 at (x, y) = (W / 4 * (b % 2), 8 * (b / 2)) of a
// 64 x 16 f32 tensor (256-byte rows); thread t reads box element (t / (W / 4), t % (W / 4)).
#define TMA_SWIZZLE(name, W)                                                                  \
    extern "C" __global__ void name(const __grid_constant__ CUtensorMap map, const float* src,\
                                    float* out)                                              \
    {                                                                                        \
        __shared__ __align__(1024) float box[W * 2];                                         \
        __shared__ __align__(8) unsigned long long bar;                                      \
        int t = threadIdx.x;                                                                 \
        unsigned b = saddr(&bar);                                                            \
        if (t == 0) {                                                                        \
            mbar_init_arm(b, W * 8);                                                         \
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"               \
                         ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"         \
                         ::"r"(saddr(box)), "l"(&map), "r"((W / 4) * (int)(blockIdx.x & 1)), \
                           "r"(8 * (int)(blockIdx.x >> 1)), "r"(b) : "memory");              \
        }                                                                                    \
        __syncthreads();                                                                     \
        mbar_wait(b);                                                                        \
        int byte = t * 4;                                                                    \
        int phys = byte ^ (((byte >> 7) % (W / 16)) << 4);                                   \
        out[blockIdx.x * (W * 2) + t] = box[phys / 4];                                       \
    }

TMA_SWIZZLE(tma_swizzle_128b, 128)
TMA_SWIZZLE(tma_swizzle_64b, 64)
TMA_SWIZZLE(tma_swizzle_32b, 32)
