// __shfl_xor_sync (shfl.sync.bfly): lane masks 1..31, widths 16/8/4 including masks that reach
// outside the segment (a lower segment is read, a higher one gives the lane's own value), and
// butterfly all-reductions: integer sum/min/max and a float sum with pinned adds (partners add in
// either order, which float addition's commutativity makes identical).

#define FULL 0xffffffffu

extern "C" __global__ void shfl_xor(const int* a, const float* f, int* out, float* fout)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int N = gridDim.x * blockDim.x;
    int x = a[g];
    int* o = out + g;
    o[0 * N] = __shfl_xor_sync(FULL, x, 1);
    o[1 * N] = __shfl_xor_sync(FULL, x, 16);
    o[2 * N] = __shfl_xor_sync(FULL, x, 31);
    o[3 * N] = __shfl_xor_sync(FULL, x, 5, 8);
    o[4 * N] = __shfl_xor_sync(FULL, x, 8, 8);
    o[5 * N] = __shfl_xor_sync(FULL, x, 20, 16);
    o[6 * N] = __shfl_xor_sync(FULL, x, 3, 4);
    int s = x >> 8, mn = x, mx = x;
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) {
        s += __shfl_xor_sync(FULL, s, m);
        mn = min(mn, __shfl_xor_sync(FULL, mn, m));
        mx = max(mx, __shfl_xor_sync(FULL, mx, m));
    }
    o[7 * N] = s;
    o[8 * N] = mn;
    o[9 * N] = mx;
    float v = f[g];
#pragma unroll
    for (int m = 1; m <= 16; m <<= 1)
        v = __fadd_rn(v, __shfl_xor_sync(FULL, v, m));
    fout[g] = v;
}
