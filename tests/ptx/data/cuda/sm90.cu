// PTX front-end test data: sm_90 features (clusters, mbarrier, TMA, wgmma, setmaxnreg, fences).
#include <cooperative_groups.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_k(int* out) {
  __shared__ int s[64];
  cg::cluster_group cl = cg::this_cluster();
  unsigned rank = cl.block_rank();
  s[threadIdx.x] = (int)rank;
  cl.sync();
  int* remote = cl.map_shared_rank(s, rank ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = remote[threadIdx.x] + (int)cl.num_blocks();
  cl.sync();
}

extern "C" __global__ void __launch_bounds__(128, 2) mbar_k(const float* g, float* out) {
  __shared__ alignas(16) float buf[128];
  __shared__ alignas(8) unsigned long long bar;
  unsigned baddr = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned saddr = (unsigned)__cvta_generic_to_shared(buf);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(baddr), "r"(1));
    asm volatile("fence.mbarrier_init.release.cluster;");
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(baddr), "r"(512));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                 :: "r"(saddr), "l"(g), "r"(baddr) : "memory");
  }
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(baddr), "r"(0));
  }
  out[threadIdx.x] = buf[threadIdx.x];
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;" :: "l"(out + 128), "r"(saddr));
  asm volatile("cp.async.bulk.commit_group;");
  asm volatile("cp.async.bulk.wait_group.read 0;");
  unsigned pred;
  asm volatile("{ .reg .pred p; .reg .b32 r; elect.sync r|p, 0xffffffff; selp.u32 %0, 1, 0, p; }" : "=r"(pred));
  out[threadIdx.x + 256] = (float)pred;
  asm volatile("griddepcontrol.launch_dependents;");
  asm volatile("griddepcontrol.wait;");
  asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], 1, [%1];" :: "r"(saddr), "r"(baddr));
  unsigned cid, crank;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(crank));
  unsigned ra;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(saddr), "r"(crank ^ 1));
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;");
  out[threadIdx.x + 512] = (float)(cid + crank + ra);
}


extern "C" __global__ void tma_k(const __grid_constant__ unsigned long long tmap[16], float* out) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) unsigned long long bar;
  unsigned baddr = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned saddr = (unsigned)__cvta_generic_to_shared(tile);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(baddr));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(saddr), "l"(tmap), "r"(0), "r"(0), "r"(baddr) : "memory");
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" :: "l"(tmap), "r"(32), "r"(0));
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" :: "l"(tmap), "r"(0), "r"(0), "r"(saddr));
    asm volatile("fence.proxy.tensormap::generic.release.gpu;");
    asm volatile("prefetch.tensormap [%0];" :: "l"(tmap));
  }
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}

extern "C" __global__ void wgmma_k(float* out, unsigned long long da, unsigned long long db) {
  float d[8];
  for (int i = 0; i < 8; ++i) d[i] = 0.0f;
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  asm volatile("wgmma.fence.sync.aligned;");
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;");
  asm volatile("wgmma.wait_group.sync.aligned 0;");
  unsigned sm = 0;
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(sm), "r"(1u), "r"(2u));
  for (int i = 0; i < 8; ++i) out[threadIdx.x * 8 + i] = d[i];
}
