// Warp-shuffle reductions: shfl.down trees over int (wrap-around sums), 64-bit and float values
// (pinned adds; the reference reproduces the tree), an argmax carrying an index through the
// shuffles, and block-wide sums that combine the per-warp results through shared memory.

#define FULL 0xffffffffu

__device__ __forceinline__ float warp_sum_f(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = __fadd_rn(v, __shfl_down_sync(FULL, v, o));
    return v;
}

__device__ __forceinline__ unsigned warp_sum_u(unsigned v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(FULL, v, o);
    return v;
}

// 256 threads per block: each warp reduces, warp 0 reduces the 8 warp results.
extern "C" __global__ void block_sum(const float* f, const unsigned* u, float* fout,
                                     unsigned* uout, float* warp_out)
{
    __shared__ float fs[8];
    __shared__ unsigned us[8];
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    int lane = t & 31, warp = t >> 5;
    float fv = warp_sum_f(f[g]);
    unsigned uv = warp_sum_u(u[g]);
    if (lane == 0) {
        fs[warp] = fv;
        us[warp] = uv;
        warp_out[g / 32] = fv;
    }
    __syncthreads();
    if (warp == 0) {
        fv = warp_sum_f(lane < 8 ? fs[lane] : 0.0f);
        uv = warp_sum_u(lane < 8 ? us[lane] : 0u);
        if (lane == 0) {
            fout[blockIdx.x] = fv;
            uout[blockIdx.x] = uv;
        }
    }
}

extern "C" __global__ void warp_argmax_sum64(const int* a, const long long* l, int* best,
                                             long long* sum64)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = a[g], idx = lane;
    unsigned long long s = (unsigned long long)l[g];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        int ov = __shfl_down_sync(FULL, v, o);
        int oi = __shfl_down_sync(FULL, idx, o);
        if (ov > v || (ov == v && oi < idx)) {
            v = ov;
            idx = oi;
        }
        s += __shfl_down_sync(FULL, s, o);
    }
    if (lane == 0) {
        best[2 * (g / 32)] = v;
        best[2 * (g / 32) + 1] = idx;
        sum64[g / 32] = (long long)s;
    }
}
