// Ordering between the generic proxy (ld/st) and the async proxy (bulk copies): generic stores
// to global -> fence.proxy.async.global -> bulk copy of that data into shared memory; generic
// stores to shared -> fence.proxy.async.shared::cta -> bulk store to global; and a bulk store to
// global that generic loads of other threads then read (wait_group, fence.proxy.async.global,
// barrier).
#define N 256

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void fence_proxy_async(const unsigned* src, unsigned* scratch,
                                             unsigned* staged, unsigned* out)
{
    __shared__ __align__(128) unsigned in_s[N];
    __shared__ __align__(128) unsigned out_s[N];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;                                 // 128 threads, 2 elements each
    unsigned b = saddr(&bar);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // 1. generic global stores, read back through the async proxy
    for (int i = t; i < N; i += 128)
        scratch[i] = src[i] * 2654435761u;
    asm volatile("fence.proxy.async.global;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(N * 4)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                     "[%0], [%1], %2, [%3];"
                     ::"r"(saddr(in_s)), "l"(scratch), "r"(N * 4), "r"(b) : "memory");
    }
    asm volatile("{ .reg .pred p;\n"
                 "W_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 "  @!p bra W_%=; }"
                 ::"r"(b) : "memory");
    // 2. generic shared stores, written out through the async proxy
    for (int i = t; i < N; i += 128)
        out_s[i] = in_s[(i * 5) % N] ^ (unsigned)i;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    // 3. the bulk store's global data, read by generic loads of every thread
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     ::"l"(staged), "r"(saddr(out_s)), "r"(N * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        asm volatile("fence.proxy.async.global;" ::: "memory");
    }
    __syncthreads();
    for (int i = t; i < N; i += 128)
        out[i] = staged[(i + 1) % N] + staged[i];
}
