// Tensor TMA (sm_90a): cp.async.bulk.tensor.2d loads of 16x8 f32 boxes through a CUtensorMap
// kernel parameter (__grid_constant__), completing on an mbarrier, with out-of-bounds elements
// zero-filled; the modified box is written back with a tensor store, which clips it to the
// tensor. The two CUtensorMap parameters are made by the driver (cuTensorMapEncodeTiled) at
// launch time from the "tensor_map" description in the launch spec: see
// tests/kernels/README.md.
#include <cuda.h>

#define BOX_X 16
#define BOX_Y 8
#define OUT_W 64   // columns of `out` (4 boxes)

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void tma_tensor_2d(const __grid_constant__ CUtensorMap map_in,
                                         const __grid_constant__ CUtensorMap map_out,
                                         const float* src, float* dst, float* out)
{
    __shared__ __align__(128) float box[BOX_Y * BOX_X];
    __shared__ __align__(128) float box2[BOX_Y * BOX_X];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    int x0 = blockIdx.x * BOX_X, y0 = blockIdx.y * BOX_Y;
    unsigned b = saddr(&bar);
    if (t == 0) {
        asm volatile("prefetch.tensormap [%0];" ::"l"(&map_in) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     ::"r"(b), "r"(BOX_X * BOX_Y * 4) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(saddr(box)), "l"(&map_in), "r"(x0), "r"(y0), "r"(b) : "memory");
    }
    asm volatile("{ .reg .pred p;\n"
                 "WAIT_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 "  @!p bra WAIT_%=; }"
                 ::"r"(b) : "memory");
    float v = box[t];                                  // element (t / 16, t % 16) of the box
    out[(y0 + t / BOX_X) * OUT_W + x0 + t % BOX_X] = __fadd_rn(__fmul_rn(v, 2.0f), 1.0f);
    box2[t] = __fsub_rn(v, 0.5f);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(&map_out), "r"(x0), "r"(y0), "r"(saddr(box2)) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
