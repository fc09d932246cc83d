// Tensor TMA multicast (sm_90a): in clusters of 2 CTAs, CTA rank r loads box r of a 3-D f32
// tensor with cp.async.bulk.tensor.3d ... .multicast::cluster to both CTAs of its cluster (CTA
// mask 0b11); every CTA's mbarrier expects both boxes, so each CTA ends up with both, written
// by the two loads into the same shared offsets of both CTAs. The CUtensorMap is made by the
// driver from the spec's "tensor_map" description (tests/kernels/README.md).
#include <cuda.h>

#define BX 8
#define BY 4
#define BZ 2
#define BOX (BX * BY * BZ)

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    tma_multicast_3d(const __grid_constant__ CUtensorMap map, const float* src, float* out)
{
    __shared__ __align__(128) float box[2][BOX];
    __shared__ __align__(8) unsigned long long bar;
    unsigned t = threadIdx.x, rank, cluster_id;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cluster_id));
    unsigned b = saddr(&bar);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     ::"r"(b), "r"(2 * BOX * 4) : "memory");
    }
    // both CTAs' mbarriers are initialised and armed before either load is issued
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (t == 0) {
        // box (x, y, z) = (8 * rank, 4 * cluster, 2 * rank): the two CTAs load different boxes
        int x = BX * rank, y = BY * cluster_id, z = BZ * rank;
        unsigned short mask = 3;
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     ".multicast::cluster [%0], [%1, {%2, %3, %4}], [%5], %6;"
                     ::"r"(saddr(box[rank])), "l"(&map), "r"(x), "r"(y), "r"(z), "r"(b), "h"(mask)
                     : "memory");
    }
    asm volatile("{ .reg .pred p;\n"
                 "WAIT_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 "  @!p bra WAIT_%=; }"
                 ::"r"(b) : "memory");
    unsigned cta = blockIdx.x;
    for (unsigned i = t; i < 2 * BOX; i += blockDim.x)
        out[cta * 2 * BOX + i] = box[i / BOX][i % BOX];
    // no CTA exits while its partner may still write into its shared memory
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
