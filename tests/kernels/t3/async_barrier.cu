// Shared-memory barriers on sm_80 (mbarrier objects): cuda::barrier with cuda::memcpy_async
// completing through cp.async.mbarrier.arrive, arrive / wait with tokens over several phases;
// and raw PTX mbarrier.init / arrive / test_wait (parity of the phase) handing data from a
// producer warp to a consumer warp twice with one barrier.
#include <cuda/barrier>

extern "C" __global__ void barrier_memcpy(const int4* src, int* out)
{
    __shared__ int4 buf[128];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    int acc = 0;
    for (int round = 0; round < 3; ++round) {
        cuda::memcpy_async(&buf[t], &src[round * 128 + t], cuda::aligned_size_t<16>(sizeof(int4)), bar);
        bar.arrive_and_wait();                              // copies of every thread landed
        int4 v = buf[(t + 5 * round + 1) % 128];
        acc = (int)((unsigned)acc * 31u + (unsigned)(v.x ^ v.y) + ((unsigned)v.z - (unsigned)v.w));
        auto token = bar.arrive();                          // everyone done reading buf
        bar.wait(std::move(token));
    }
    out[t] = acc;
}

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p;\n"
                     "  mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
                     "  selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}

// 64 threads: warp 0 produces, warp 1 consumes. full: producer -> consumer (32 arrivals),
// empty: consumer -> producer (32 arrivals). Two rounds, so each barrier completes phases 0, 1.
extern "C" __global__ void mbarrier_handoff(const unsigned* src, unsigned* out)
{
    __shared__ unsigned data[32];
    __shared__ __align__(8) unsigned long long full, empty;
    int t = threadIdx.x, lane = t & 31;
    if (t == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], 32;" ::"r"(saddr(&full)));
        asm volatile("mbarrier.init.shared.b64 [%0], 32;" ::"r"(saddr(&empty)));
    }
    __syncthreads();
    unsigned long long state;
    for (int round = 0; round < 2; ++round) {
        if (t < 32) {
            if (round > 0)
                wait_parity(saddr(&empty), round - 1);     // consumer finished round - 1
            data[lane] = src[round * 32 + lane] ^ (unsigned)(round * 0x9e3779b9u);
            asm volatile("mbarrier.arrive.shared.b64 %0, [%1];"
                         : "=l"(state) : "r"(saddr(&full)) : "memory");
        } else {
            wait_parity(saddr(&full), round);
            out[round * 32 + lane] = data[(lane + 7) & 31] + data[lane];
            asm volatile("mbarrier.arrive.shared.b64 %0, [%1];"
                         : "=l"(state) : "r"(saddr(&empty)) : "memory");
        }
    }
}
