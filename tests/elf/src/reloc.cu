// For -c (relocatable) output: calls to external device functions, extern globals, weak.
extern "C" {
extern __device__ int ext_func(int);
extern __device__ int ext_var;
extern __device__ float ext_arr[];
__device__ __noinline__ int local_helper(int x) { return x ^ 0x5a; }
__device__ int defined_var = 3;
__global__ void uses_externs(int *out, const int *in) {
    int i = threadIdx.x;
    out[i] = ext_func(in[i]) + ext_var + (int)ext_arr[i] + local_helper(i) + defined_var;
}
__device__ __noinline__ int exported_func(int x) { return x * 5 + defined_var; }
}
