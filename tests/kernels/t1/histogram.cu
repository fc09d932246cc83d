// Histograms: per-block shared-memory bins filled with shared atomics, then merged into global bins
// with global atomics (integer, so the result is order-independent); a 256-bin byte histogram read
// as uchar4 words and a 64-bin histogram privatised per warp ([warps][64] shared bins) with a
// grid-stride input loop.

extern "C" __global__ void hist_bytes(const uchar4* data, unsigned* bins, int nwords)
{
    __shared__ unsigned s[256];
    int t = threadIdx.x;
    for (int k = t; k < 256; k += blockDim.x)
        s[k] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    if (i < nwords) {
        uchar4 w = data[i];
        atomicAdd(&s[w.x], 1u);
        atomicAdd(&s[w.y], 1u);
        atomicAdd(&s[w.z], 1u);
        atomicAdd(&s[w.w], 1u);
    }
    __syncthreads();
    for (int k = t; k < 256; k += blockDim.x) {
        if (s[k])
            atomicAdd(&bins[k], s[k]);
    }
}

// 128 threads = 4 warps per block.
extern "C" __global__ void hist_warp_private(const int* data, unsigned* bins, int n)
{
    __shared__ unsigned s[4][64];
    int t = threadIdx.x, warp = t >> 5;
    for (int k = t; k < 4 * 64; k += blockDim.x)
        (&s[0][0])[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = (unsigned)data[i];
        atomicAdd(&s[warp][(v ^ (v >> 13)) & 63u], 1u);
    }
    __syncthreads();
    if (t < 64) {
        unsigned total = s[0][t] + s[1][t] + s[2][t] + s[3][t];
        atomicAdd(&bins[t], total);
    }
}
