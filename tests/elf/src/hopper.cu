// sm_90 features: mbarrier, elect, fence.proxy, setmaxnreg (sm_90a), distributed shared memory.
#include <cuda/barrier>
extern "C" {
__global__ void mbarrier_kernel(int *out) {
    __shared__ unsigned long long bar;
    __shared__ int data[64];
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(&bar)), "r"(blockDim.x));
    __syncthreads();
    data[threadIdx.x] = threadIdx.x;
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"((unsigned)__cvta_generic_to_shared(&bar)));
    unsigned ok = 0;
    while (!ok)
        asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok) : "r"((unsigned)__cvta_generic_to_shared(&bar)), "l"(st));
    out[threadIdx.x] = data[63 - threadIdx.x];
}
}
