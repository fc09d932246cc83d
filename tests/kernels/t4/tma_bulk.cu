// 1-D bulk copies (TMA without a tensor map): cp.async.bulk global -> shared completing on an
// mbarrier (mbarrier.arrive.expect_tx + complete_tx::bytes, try_wait.parity) over two phases of
// one barrier; cp.async.bulk shared -> global in a bulk_group (commit_group, wait_group.read /
// wait_group); cp.reduce.async.bulk .add.u32 into global; cp.async.bulk.prefetch.L2.
#define CHUNK 256   // ints per copy (1 KB)

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void wait_phase(unsigned bar, unsigned parity)
{
    asm volatile("{ .reg .pred p;\n"
                 "WAIT_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "  @!p bra WAIT_%=; }"
                 ::"r"(bar), "r"(parity) : "memory");
}

// 128 threads per block; block b handles src[b*2*CHUNK .. +2*CHUNK) in two phases.
extern "C" __global__ void tma_bulk(const int* src, int* dst, unsigned* acc)
{
    __shared__ __align__(128) int in_s[CHUNK];
    __shared__ __align__(128) int out_s[2 * CHUNK];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    const int* base = src + blockIdx.x * 2 * CHUNK;
    unsigned b = saddr(&bar);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(base), "r"(2 * CHUNK * 4));
    }
    __syncthreads();
    for (int phase = 0; phase < 2; ++phase) {
        if (t == 0) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                         ::"r"(b), "r"(CHUNK * 4) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                         "[%0], [%1], %2, [%3];"
                         ::"r"(saddr(in_s)), "l"(base + phase * CHUNK), "r"(CHUNK * 4), "r"(b)
                         : "memory");
        }
        wait_phase(b, phase);                        // the bytes have landed
        for (int i = t; i < CHUNK; i += 128)
            out_s[phase * CHUNK + i] = (int)((unsigned)in_s[(i + 17) % CHUNK] * 3u + (unsigned)phase);
        __syncthreads();                             // everyone done with in_s before reuse
    }
    // generic-proxy writes of out_s -> async-proxy reads by the bulk store
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     ::"l"(dst + blockIdx.x * 2 * CHUNK), "r"(saddr(out_s)), "r"(2 * CHUNK * 4)
                     : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;"
                     ::"l"(acc), "r"(saddr(out_s)), "r"(CHUNK * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");   // out_s may be reused
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");        // writes complete
    }
}
