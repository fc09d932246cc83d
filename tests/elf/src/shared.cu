// Static and dynamic (extern) shared memory, barriers, named barriers, launch bounds.
extern "C" {
extern __shared__ float dyn_smem[];

__global__ void __launch_bounds__(256, 2) static_shared(float *out, const float *in) {
    __shared__ float tile[256];
    __shared__ double dtile[32];
    int t = threadIdx.x;
    tile[t] = in[t];
    if (t < 32) dtile[t] = in[t] * 2.0;
    __syncthreads();
    out[t] = tile[255 - t] + (float)dtile[t & 31];
}

__global__ void __launch_bounds__(128) dynamic_shared(float *out, const float *in, int n) {
    int t = threadIdx.x;
    dyn_smem[t] = in[t];
    __syncthreads();
    out[t] = dyn_smem[(t + 1) % n];
}

__global__ void named_barrier(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    asm volatile("bar.sync 1, 64;");
    out[threadIdx.x] = s[63 - threadIdx.x];
    asm volatile("bar.sync 2, 64;");
}
}
