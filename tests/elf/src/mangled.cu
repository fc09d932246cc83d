// C++ mangled names, templates, namespaces.
namespace ns {
template <typename T> __global__ void scale(T *p, T k) { p[threadIdx.x] *= k; }
template __global__ void scale<float>(float *, float);
template __global__ void scale<int>(int *, int);
}
__device__ __noinline__ int helper(int x) { return x * 3; }
__global__ void cpp_kernel(int *p) { p[threadIdx.x] = helper(p[threadIdx.x]); }
