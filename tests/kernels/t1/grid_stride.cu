// Grid-stride loops (trip count depends on the thread, the grid size and n): saxpy with a pinned
// fma, an integer transform with 64-bit indices, and a strided gather whose stride comes from a
// parameter.

extern "C" __global__ void saxpy_grid_stride(float a, const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = __fmaf_rn(a, x[i], y[i]);
}

extern "C" __global__ void xform_grid_stride64(const unsigned* in, unsigned* out, long long n)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned v = in[i];
        out[i] = (v * 2654435761u) ^ (unsigned)(i >> 2) ^ (v >> 7);
    }
}

extern "C" __global__ void gather_strided(const int* in, int* out, int stride, int m, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x)
        out[i] = in[(int)(((long long)i * stride) % n)];
}
