// Device functions, calls, recursion (stack), function pointers, local arrays.
extern "C" {
__device__ __noinline__ int add_one(int x) { return x + 1; }
__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ __noinline__ float twice(float x) { return 2.0f * x; }
__device__ __noinline__ float thrice(float x) { return 3.0f * x; }
typedef float (*fn_t)(float);
__device__ fn_t g_fns[2] = {twice, thrice};

__global__ void call_kernel(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = add_one(in[i]) + fact(in[i] & 7);
}

__global__ void fptr_kernel(float *out, const float *in, int sel, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    fn_t f = g_fns[sel & 1];
    if (i < n) out[i] = f(in[i]);
}

__global__ void local_array(int *out, int k) {
    int buf[64];
    for (int j = 0; j < 64; ++j) buf[j] = j * k + threadIdx.x;
    out[threadIdx.x] = buf[(threadIdx.x * 7 + k) & 63];
}
}
