// PTX front-end test data: sm_100a tcgen05 (tensor memory) instructions through inline PTX.
extern "C" __global__ void tcgen05_k(float* out, unsigned long long adesc, unsigned long long bdesc, unsigned idesc) {
  __shared__ unsigned tmem_base;
  __shared__ alignas(8) unsigned long long bar;
  unsigned taddr = (unsigned)__cvta_generic_to_shared(&tmem_base);
  unsigned baddr = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x < 32) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(taddr));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  unsigned t = tmem_base;
  if (threadIdx.x == 0) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p; }"
                 :: "r"(t), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(1));
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(baddr));
  }
  unsigned r0, r1, r2, r3;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(t));
  asm volatile("tcgen05.wait::ld.sync.aligned;");
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" :: "r"(t), "r"(r0));
  asm volatile("tcgen05.wait::st.sync.aligned;");
  out[threadIdx.x] = __uint_as_float(r0 + r1 + r2 + r3);
  __syncthreads();
  if (threadIdx.x < 32) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(t));
}
