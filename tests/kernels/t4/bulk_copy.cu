// Bulk asynchronous copies (sm_90a): cp.async.bulk global -> shared completing on an mbarrier
// (expect_tx / complete_tx, several copies per phase, two phases of one barrier), shared ->
// global with bulk groups (commit_group, wait_group.read), cp.reduce.async.bulk (add, max, xor)
// into global memory, and a shared -> peer-shared bulk copy inside a cluster of 2.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{ .reg .pred p;\n"
                 "WAIT_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "  @!p bra WAIT_%=; }" ::"r"(bar), "r"(parity) : "memory");
}

__device__ __forceinline__ void g2s(void* dst, const void* src, unsigned bytes, unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(saddr(dst)), "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

// Each CTA: 1 KB in, +1 on every word in shared memory, 1 KB bulk-stored back.
extern "C" __global__ void bulk_roundtrip(const unsigned* in, unsigned* out)
{
    __shared__ __align__(128) unsigned buf[256];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    unsigned b = saddr(&bar);
    if (t == 0)
        mbar_init(b, 1);
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(1024)
                     : "memory");
        g2s(buf, in + blockIdx.x * 256, 1024, b);
    }
    mbar_wait(b, 0);
    for (int i = t; i < 256; i += blockDim.x)
        buf[i] = buf[i] * 3u + (unsigned)i;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     ::"l"(out + blockIdx.x * 256), "r"(saddr(buf)), "r"(1024) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncthreads();                                  // the shared source outlives the read
}

// Five copies on one barrier: phase 0 gets 16 + 48 + 448 bytes, phase 1 two of 256 bytes.
extern "C" __global__ void bulk_phases(const unsigned char* in, unsigned* out)
{
    __shared__ __align__(128) unsigned char buf[1024];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    unsigned b = saddr(&bar);
    if (t == 0)
        mbar_init(b, 1);
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(512)
                     : "memory");
        g2s(buf + 0, in + 496, 16, b);
        g2s(buf + 16, in + 0, 48, b);
        g2s(buf + 64, in + 48, 448, b);
    }
    mbar_wait(b, 0);
    unsigned s0 = 0;
    for (int i = t; i < 512; i += blockDim.x)
        s0 += (unsigned)buf[i] * (unsigned)(i + 1);
    __syncthreads();                                  // everyone read phase 0's data
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(512)
                     : "memory");
        g2s(buf + 512, in + 768, 256, b);
        g2s(buf + 768, in + 512, 256, b);
    }
    mbar_wait(b, 1);
    unsigned s1 = 0;
    for (int i = t; i < 512; i += blockDim.x)
        s1 += (unsigned)buf[512 + i] * (unsigned)(i + 1);
    out[2 * t] = s0;
    out[2 * t + 1] = s1;
}

// Bulk reductions of 512 bytes of shared memory into global memory: add.u32, max.s32, xor.b32.
extern "C" __global__ void bulk_reduce(const unsigned* in, unsigned* acc_add, int* acc_max,
                                       unsigned* acc_xor)
{
    __shared__ __align__(128) unsigned buf[128];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * 128 + t];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        unsigned s = saddr(buf);
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 512;"
                     ::"l"(acc_add), "r"(s) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s32 [%0], [%1], 512;"
                     ::"l"(acc_max), "r"(s) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%0], [%1], 512;"
                     ::"l"(acc_xor), "r"(s) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    __syncthreads();
}

// Clusters of 2: each CTA bulk-copies its 512 bytes into its partner's shared memory, completing
// on the partner's mbarrier (both addresses mapped with mapa).
extern "C" __global__ void __cluster_dims__(2, 1, 1) bulk_dsmem(const unsigned* in, unsigned* out)
{
    __shared__ __align__(128) unsigned mine[128];
    __shared__ __align__(128) unsigned got[128];
    __shared__ __align__(8) unsigned long long bar;
    cg::cluster_group cluster = cg::this_cluster();
    int t = threadIdx.x;
    unsigned b = saddr(&bar), peer = cluster.block_rank() ^ 1u;
    mine[t] = in[blockIdx.x * 128 + t] ^ (unsigned)(t << 16);
    if (t == 0) {
        mbar_init(b, 1);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(512)
                     : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    cluster.sync();                                   // both barriers armed, both sources written
    if (t == 0) {
        unsigned dst, rbar;
        asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(saddr(got)), "r"(peer));
        asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(b), "r"(peer));
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
                     " [%0], [%1], 512, [%2];" ::"r"(dst), "r"(saddr(mine)), "r"(rbar) : "memory");
    }
    mbar_wait(b, 0);
    out[blockIdx.x * 128 + t] = got[(t + 5) & 127] + (unsigned)t;
    cluster.sync();                                   // the partner finished reading `mine`
}
