// Kernels for the emulator's CLI and API tests: parameters passed by value as raw bytes (structs
// of 24, 1216 and 6144 bytes: the last one is over the classic 4 KiB parameter limit, which
// CUDA 12.1+ lifts on sm_70+), device printf, and a cluster launch.

#include <cstdio>

struct Affine {  // 24 bytes, alignment 8
    int n;
    float scale;
    double offset;
    long long bias;
};

struct Table {  // 1216 bytes, alignment 4
    float v[304];
};

struct Big {  // 6144 bytes, alignment 8
    unsigned long long w[768];
};

extern "C" __global__ void affine(Affine p, const float* x, double* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n)
        y[i] = __dadd_rn(__dadd_rn((double)__fmul_rn(x[i], p.scale), p.offset),
                         (double)(p.bias * i));
}

extern "C" __global__ void table_lookup(const __grid_constant__ Table t, const unsigned* idx,
                                        float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = t.v[idx[i] % 304u];
}

extern "C" __global__ void big_sum(const __grid_constant__ Big b, unsigned long long* out)
{
    unsigned long long s = 0;
    for (int k = threadIdx.x; k < 768; k += blockDim.x)
        s += b.w[k] * (unsigned long long)(k + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" __global__ void hello(const int* v, float f)
{
    int t = threadIdx.x;
    if (t % 16 == 0)
        printf("block %d thread %2d: v=%d f=%.3f hex=%#x %s\n", blockIdx.x, t, v[t],
               __fmul_rn(f, (float)t), v[t], t ? "later" : "first");
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_ranks(unsigned* out)
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (threadIdx.x == 0)
        out[blockIdx.x] = rank * 100u + blockIdx.x;
}
