// Cluster communication beyond t4/cluster: remote stores (st.shared::cluster via mapa) ordered by
// barrier.cluster.arrive.release / wait.acquire, st.async and red.async into another CTA's shared
// memory completing on its mbarrier (complete_tx), remote mbarrier arrivals
// (mbarrier.arrive.release.cluster.shared::cluster), and a 2 x 2 x 2 cluster's special registers
// with an all-to-all distributed shared memory exchange.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ unsigned mapa(unsigned a, unsigned rank)
{
    unsigned r;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}

__device__ __forceinline__ unsigned sreg_rank()
{
    unsigned r;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ __forceinline__ void cluster_arrive_wait()
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Clusters of 4: thread t of rank r stores into rank (r + 1) % 4's buffer at (t * 5) % 64.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_st_remote(const unsigned* in,
                                                                       unsigned* out)
{
    __shared__ unsigned buf[64];
    int t = threadIdx.x;
    unsigned rank = sreg_rank();
    cluster_arrive_wait();                            // every CTA is running
    unsigned dst = mapa(saddr(&buf[(t * 5) & 63]), (rank + 1) & 3);
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(dst), "r"(in[blockIdx.x * 64 + t] + rank)
                 : "memory");
    cluster_arrive_wait();                            // all remote stores visible
    out[blockIdx.x * 64 + t] = buf[t];
    cluster_arrive_wait();                            // nobody stores into an exited CTA
}

// One cluster of 4 x 64 threads: every thread st.async's one word into rank 0's `vals` and
// red.async-adds into rank 0's `sum`, both completing on rank 0's mbarrier (512 + 1024 bytes).
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_async_tx(const unsigned* in,
                                                                      unsigned* out, unsigned* sum)
{
    __shared__ unsigned vals[256];
    __shared__ unsigned acc[2];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    unsigned rank = sreg_rank(), b = saddr(&bar);
    if (rank == 0 && t == 0) {
        acc[0] = 0;
        acc[1] = 0;
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b),
                     "r"(256 * 4 + 256 * 2 * 4) : "memory");
    }
    cluster_arrive_wait();                            // rank 0's barrier is armed
    unsigned v = in[rank * 64 + t];
    unsigned rb = mapa(b, 0);
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                 ::"r"(mapa(saddr(&vals[(rank * 64 + t) ^ 7]), 0)), "r"(v), "r"(rb) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32"
                 " [%0], %1, [%2];" ::"r"(mapa(saddr(&acc[0]), 0)), "r"(v), "r"(rb) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32"
                 " [%0], %1, [%2];" ::"r"(mapa(saddr(&acc[1]), 0)), "r"(v >> 4), "r"(rb) : "memory");
    if (rank == 0) {
        asm volatile("{ .reg .pred p;\n"
                     "WAIT_%=:\n"
                     "  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
                     "  @!p bra WAIT_%=; }" ::"r"(b) : "memory");
        for (int i = t; i < 256; i += 64)
            out[i] = vals[i];
        if (t < 2)
            sum[t] = acc[t];
    }
    cluster_arrive_wait();                            // rank 0 outlives the remote writes
}

// Clusters of 4: ranks 1-3 write 64 words each into rank 0's `slots` and then arrive (release,
// cluster scope) on rank 0's mbarrier, which expects 3 arrivals; rank 0 waits (acquire) and sums.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_remote_arrive(const unsigned* in,
                                                                           unsigned* out)
{
    __shared__ unsigned slots[3][64];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    unsigned rank = sreg_rank(), b = saddr(&bar);
    if (rank == 0 && t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 3;" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster_arrive_wait();
    if (rank != 0) {
        unsigned dst = mapa(saddr(&slots[rank - 1][t]), 0);
        asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(dst), "r"(in[blockIdx.x * 64 + t] * rank)
                     : "memory");
        __syncthreads();                              // all 64 stores of this CTA issued
        if (t == 0)
            asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
                         ::"r"(mapa(b, 0)) : "memory");
    } else {
        asm volatile("{ .reg .pred p;\n"
                     "WAIT_%=:\n"
                     "  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
                     "  @!p bra WAIT_%=; }" ::"r"(b) : "memory");
        out[(blockIdx.x / 4) * 64 + t] = slots[0][t] + slots[1][t] * 3u + slots[2][t] * 5u;
    }
    cluster_arrive_wait();
}

// Grid 4 x 2 x 2 in clusters of 2 x 2 x 2: special registers, and each CTA reads word `rank`
// of every CTA of its cluster.
extern "C" __global__ void __cluster_dims__(2, 2, 2) cluster_3d(unsigned* info, unsigned* xch)
{
    __shared__ unsigned mine[8];
    cg::cluster_group cluster = cg::this_cluster();
    int t = threadIdx.x;
    unsigned cta = blockIdx.x + 4 * (blockIdx.y + 2 * blockIdx.z);
    unsigned rank = sreg_rank();
    if (t < 8)
        mine[t] = cta * 100 + t;
    cluster.sync();
    if (t < 8) {
        unsigned v;
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v)
                     : "r"(mapa(saddr(&mine[rank]), (unsigned)t)) : "memory");
        xch[cta * 8 + t] = v;
    }
    if (t == 0) {
        unsigned r[13];
        asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r[0]));
        asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(r[1]));
        asm("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(r[2]));
        asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r[3]));
        asm("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(r[4]));
        asm("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(r[5]));
        asm("mov.u32 %0, %%clusterid.x;" : "=r"(r[6]));
        asm("mov.u32 %0, %%clusterid.y;" : "=r"(r[7]));
        asm("mov.u32 %0, %%clusterid.z;" : "=r"(r[8]));
        asm("mov.u32 %0, %%nclusterid.x;" : "=r"(r[9]));
        asm("mov.u32 %0, %%nclusterid.y;" : "=r"(r[10]));
        asm("mov.u32 %0, %%nclusterid.z;" : "=r"(r[11]));
        asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r[12]));
        for (int i = 0; i < 13; ++i)
            info[cta * 16 + i] = r[i];
        info[cta * 16 + 13] = rank;
    }
    cluster.sync();
}
