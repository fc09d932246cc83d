// sm_100a only: tcgen05 alloc/dealloc.
extern "C" {
__global__ void tcgen05_kernel(int *out) {
    __shared__ unsigned tmem_addr;
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"((unsigned)__cvta_generic_to_shared(&tmem_addr)));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
    }
    __syncthreads();
    out[threadIdx.x] = tmem_addr;
    __syncthreads();
    if (threadIdx.x < 32)
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem_addr));
}
}
