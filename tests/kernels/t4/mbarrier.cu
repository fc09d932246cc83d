// mbarrier objects on sm_90 through inline PTX: init, arrive (one, and with a count for a whole
// warp after __syncwarp), arrive_drop (half of the block leaves; later phases expect 64),
// try_wait.parity with a suspend-time hint, test_wait.parity spinning and probing completed /
// pending phases, arrive.expect_tx, expect_tx and complete_tx transaction counts, inval.
__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void wait_try(unsigned bar, unsigned parity)
{
    asm volatile("{ .reg .pred p;\n"
                 "TRY_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1, 1000;\n"
                 "  @!p bra TRY_%=; }"
                 ::"r"(bar), "r"(parity) : "memory");
}

__device__ __forceinline__ unsigned test(unsigned bar, unsigned parity)
{
    unsigned r;
    asm volatile("{ .reg .pred p;\n"
                 "  mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "  selp.u32 %0, 1, 0, p; }"
                 : "=r"(r) : "r"(bar), "r"(parity) : "memory");
    return r;
}

__device__ __forceinline__ void wait_test(unsigned bar, unsigned parity)
{
    while (!test(bar, parity)) {
    }
}

extern "C" __global__ void mbarrier_phases(const unsigned* src, unsigned* out)
{
    __shared__ unsigned data[128];
    __shared__ __align__(8) unsigned long long bar_s, tx_s;
    int t = threadIdx.x, lane = t & 31;
    unsigned bar = saddr(&bar_s), tx = saddr(&tx_s);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(bar));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(tx));
    }
    __syncthreads();
    unsigned acc = 0, ph = 0;
    for (int r = 0; r < 4; ++r) {
        int live = r < 2 ? 128 : 64;
        data[t] = src[r * 128 + t] * (unsigned)(r + 1);
        if (r == 0) {
            __syncwarp();                             // the warp's writes, then one arrival of 32
            if (lane == 0)
                asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], 32;" ::"r"(bar) : "memory");
        } else if (r == 1 && t >= 64) {
            asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
            out[t] = acc;                             // leaves: later phases expect 64 arrivals
            return;
        } else {
            arrive(bar);
        }
        if (r & 1)
            wait_test(bar, ph);
        else
            wait_try(bar, ph);
        ph ^= 1;
        acc = acc * 7u + data[(t + 7 * r + 1) % live];
        arrive(bar);                                  // every reader done before the next write
        wait_try(bar, ph);
        ph ^= 1;
    }
    // transaction counts without a copy: phase 0 of tx needs 1 arrival and 64 bytes
    if (t == 0)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 64;" ::"r"(tx) : "memory");
    else if (t <= 4)
        asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 16;" ::"r"(tx) : "memory");
    wait_try(tx, 0);
    // phase 1: expect_tx and complete_tx by one thread, then its arrival
    if (t == 0) {
        asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], 32;" ::"r"(tx) : "memory");
        asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 32;" ::"r"(tx) : "memory");
        arrive(tx);
    }
    wait_test(tx, 1);
    // phase 2 is pending: parity 0 now names it (not complete), parity 1 the completed phase 1
    unsigned flags = test(tx, 1) | (test(tx, 0) << 1) | (test(bar, ph ^ 1) << 2);
    out[t] = acc;
    out[128 + t] = flags;
    asm volatile("bar.sync 1, 64;" ::: "memory");    // the 64 remaining threads
    if (t == 0) {
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(tx) : "memory");
    }
}
