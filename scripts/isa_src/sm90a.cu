// targets: sm_90a
// Hopper-specific instructions: wgmma, TMA, mbarrier, bulk copies, setmaxnreg, elect, clusters.
#include <cstdint>
struct alignas(64) TMap { char bytes[128]; };

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void __cluster_dims__(2, 1, 1) hopper(float *out, const float *in, const __grid_constant__ TMap tmap, int n) {
    __shared__ __align__(1024) unsigned short tileA[64 * 64];
    __shared__ __align__(1024) unsigned short tileB[64 * 64];
    __shared__ __align__(8) unsigned long long bar;
    __shared__ __align__(128) float stage[256];
    int t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&bar)), "r"(1));
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();
    unsigned elected;
    asm volatile("{.reg .pred p; elect.sync %0|p, 0xffffffff;}" : "=r"(elected));
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(&bar)), "r"(8192));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(smem(tileA)), "l"(&tmap), "r"(0), "r"(n), "r"(smem(&bar)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(smem(tileB)), "l"(in), "r"(4096), "r"(smem(&bar)) : "memory");
    }
    unsigned done = 0;
    while (!done) {
        asm volatile("{.reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p;}"
                     : "=r"(done) : "r"(smem(&bar)), "r"(0));
    }
    unsigned long long descA = ((unsigned long long)(smem(tileA) >> 4) & 0x3fff) | (1ull << 16) | (64ull << 32) | (1ull << 62);
    unsigned long long descB = ((unsigned long long)(smem(tileB) >> 4) & 0x3fff) | (1ull << 16) | (64ull << 32) | (1ull << 62);
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("wgmma.fence.sync.aligned;");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(descA), "l"(descB));
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 1;"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(descA), "l"(descB));
    asm volatile("wgmma.commit_group.sync.aligned;");
    asm volatile("wgmma.wait_group.sync.aligned 0;");
    stage[t] = d0 + d1 + d2 + d3 + (float)elected;
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     :: "l"(&tmap), "r"(0), "r"(n), "r"(smem(stage)) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;");
    }
    unsigned rank, nrank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem(stage)), "r"(rank ^ 1));
    asm volatile("barrier.cluster.arrive.release.aligned;");
    asm volatile("barrier.cluster.wait.acquire.aligned;");
    float rv;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(rv) : "r"(remote));
    out[t] = rv + (float)rank + (float)nrank;
}

extern "C" __global__ void __launch_bounds__(384, 1) regs(float *o, int n) {
    int w = threadIdx.x / 128;
    if (w == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        o[threadIdx.x] = 1.0f;
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        o[threadIdx.x] = (float)n;
    }
    asm volatile("griddepcontrol.wait;");
    asm volatile("griddepcontrol.launch_dependents;");
}
