// Thread-block clusters: __cluster_dims__, cluster.sync(), distributed shared memory through
// cluster.map_shared_rank (loads, and integer atomics into another CTA's shared memory), the
// cluster special registers, mapa + ld.shared::cluster, and the split barrier.cluster
// arrive.release / wait.acquire.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// 4 CTAs of 128 threads, clusters of 2: each CTA reads its partner's shared memory.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_dsmem(const int* in, int* out)
{
    __shared__ int buf[128];
    cg::cluster_group cluster = cg::this_cluster();
    int t = threadIdx.x;
    unsigned rank = cluster.block_rank();
    buf[t] = in[blockIdx.x * 128 + t];
    cluster.sync();                                   // partner's buf is written
    const int* peer = cluster.map_shared_rank(buf, rank ^ 1u);
    int v = peer[(t + 3) & 127];
    cluster.sync();                                   // partner done reading before exit
    out[blockIdx.x * 128 + t] = (int)((unsigned)v * 2u + (unsigned)buf[t]);
}

// One cluster of 4 CTAs x 64 threads: every thread adds its value into CTA 0's shared
// accumulators (integer atomics: order-independent), CTA 0 writes them; each CTA also
// reports its cluster coordinates.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_reduce(const unsigned* in,
                                                                    unsigned* sums, int* info)
{
    __shared__ unsigned acc[4];
    cg::cluster_group cluster = cg::this_cluster();
    int t = threadIdx.x;
    if (t < 4)
        acc[t] = t == 3 ? 0xffffffffu : 0u;  // the identity of each reduction (min: all ones)
    cluster.sync();                                   // rank 0's acc is initialised
    unsigned* root = cluster.map_shared_rank(acc, 0);
    unsigned v = in[blockIdx.x * 64 + t];
    atomicAdd(&root[0], v);
    atomicXor(&root[1], v);
    atomicMax(&root[2], v);
    atomicMin(&root[3], v);
    cluster.sync();                                   // all contributions made
    if (cluster.block_rank() == 0 && t < 4)
        sums[t] = acc[t];
    if (t == 0) {
        info[blockIdx.x * 4 + 0] = (int)cluster.block_rank();
        info[blockIdx.x * 4 + 1] = (int)cluster.num_blocks();
        info[blockIdx.x * 4 + 2] = (int)cluster.dim_blocks().x;
        info[blockIdx.x * 4 + 3] = (int)cluster.block_index().x;
    }
    cluster.sync();                                   // keep CTA 0's shared memory alive
}

__device__ __forceinline__ unsigned sreg(int which)
{
    unsigned r = 0;
    switch (which) {
    case 0: asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); break;
    case 1: asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r)); break;
    case 2: asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r)); break;
    case 3: asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(r)); break;
    case 4: asm("mov.u32 %0, %%clusterid.x;" : "=r"(r)); break;
    case 5: asm("mov.u32 %0, %%clusterid.y;" : "=r"(r)); break;
    case 6: asm("mov.u32 %0, %%nclusterid.x;" : "=r"(r)); break;
    case 7: asm("mov.u32 %0, %%nclusterid.y;" : "=r"(r)); break;
    case 8: asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r)); break;
    }
    return r;
}

// Grid 4 x 2 of 64-thread CTAs in 2 x 2 clusters: special registers, and each CTA reads the
// shared memory of its x- and y-neighbours in the cluster with mapa + ld.shared::cluster,
// synchronised with barrier.cluster.arrive.release / wait.acquire.
extern "C" __global__ void __cluster_dims__(2, 2, 1) cluster_2d(const int* in, int* out,
                                                                 unsigned* regs)
{
    __shared__ int buf[64];
    int t = threadIdx.x;
    int cta = blockIdx.y * gridDim.x + blockIdx.x;
    buf[t] = in[cta * 64 + t];
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned rank = sreg(0);
    unsigned local = (unsigned)__cvta_generic_to_shared(&buf[(t + 1) & 63]);
    unsigned rx, ry;                                   // partner ranks: flip x, flip y
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rx) : "r"(local), "r"(rank ^ 1u));
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ry) : "r"(local), "r"(rank ^ 2u));
    int vx, vy;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(vx) : "r"(rx) : "memory");
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(vy) : "r"(ry) : "memory");
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    out[cta * 64 + t] = vx ^ (int)((unsigned)vy << 1);
    if (t < 9)
        regs[cta * 9 + t] = sreg(t);
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
