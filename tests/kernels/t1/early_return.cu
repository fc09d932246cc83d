// Early returns: threads leaving at several points of a kernel (after some stores, inside a loop),
// a multi-return device function inlined into the kernel, and whole warps or single lanes of a
// warp exiting while the rest continue.

__device__ __forceinline__ int classify(int x)
{
    if (x < -1000000)
        return -1;
    if (x > 1000000)
        return 1;
    if (x & 1)
        return 2;
    return 0;
}

extern "C" __global__ void early_exit(const int* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    out[i] = classify(x);
    if (x < -1500000000)
        return;
    out[n + i] = x >> 4;
    for (int k = 0; k < 32; ++k) {
        if ((x >> k) == 0) {
            out[2 * n + i] = k;
            return;
        }
    }
    out[2 * n + i] = 32;
}

extern "C" __global__ void early_exit_warps(const unsigned* a, unsigned* out)
{
    int t = threadIdx.x;
    int warp = t / 32, lane = t % 32;
    if (warp == 1)
        return;
    unsigned x = a[t];
    if (warp == 2 && lane != 5 && lane != 31)
        return;
    if (lane == 0) {
        out[t] = 0xC0FFEEu;
        return;
    }
    out[t] = x * (unsigned)lane + (unsigned)warp;
}
