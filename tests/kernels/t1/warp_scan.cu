// Scans with shfl.up (Kogge-Stone): inclusive int and float scans within each warp (pinned float
// adds, reproduced step by step), an exclusive scan by shifting the inclusive one up a lane, and a
// block-wide inclusive scan that adds scanned per-warp totals from shared memory.

#define FULL 0xffffffffu

__device__ __forceinline__ int warp_incl_i(int v, int lane)
{
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(FULL, v, o);
        if (lane >= o)
            v += t;
    }
    return v;
}

__device__ __forceinline__ float warp_incl_f(float v, int lane)
{
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        float t = __shfl_up_sync(FULL, v, o);
        if (lane >= o)
            v = __fadd_rn(t, v);
    }
    return v;
}

extern "C" __global__ void warp_scans(const int* a, const float* f, int* incl, int* excl,
                                      float* fincl)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = warp_incl_i(a[g] >> 8, lane);
    incl[g] = v;
    int e = __shfl_up_sync(FULL, v, 1);
    excl[g] = lane == 0 ? 0 : e;
    fincl[g] = warp_incl_f(f[g], lane);
}

// 192 threads per block (6 warps).
extern "C" __global__ void block_scan(const int* a, int* out)
{
    __shared__ int totals[32];
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    int lane = t & 31, warp = t >> 5, nwarps = blockDim.x >> 5;
    int v = warp_incl_i(a[g] >> 10, lane);
    if (lane == 31)
        totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int w = lane < nwarps ? totals[lane] : 0;
        w = warp_incl_i(w, lane);
        if (lane < nwarps)
            totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0)
        v += totals[warp - 1];
    out[g] = v;
}
