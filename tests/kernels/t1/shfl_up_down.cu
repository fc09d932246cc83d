// __shfl_up_sync / __shfl_down_sync: deltas 0, 1, 3, 5, 7 and 31 over the whole warp and within
// segments of width 16, 8, 4 and 2 (lanes whose source would leave the segment keep their own
// value), on int, float and 64-bit values; also a shfl-based shift of a 64-bit value across lanes.

#define FULL 0xffffffffu

extern "C" __global__ void shfl_up_down(const int* a, const float* f, const unsigned long long* l,
                                        int* out, float* fout, unsigned long long* lout)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int N = gridDim.x * blockDim.x;
    int x = a[g];
    float y = f[g];
    unsigned long long z = l[g];
    int* o = out + g;
    o[0 * N] = __shfl_up_sync(FULL, x, 1);
    o[1 * N] = __shfl_up_sync(FULL, x, 5);
    o[2 * N] = __shfl_up_sync(FULL, x, 3, 8);
    o[3 * N] = __shfl_up_sync(FULL, x, 0);
    o[4 * N] = __shfl_up_sync(FULL, x, 16, 16);
    o[5 * N] = __shfl_up_sync(FULL, x, 31);
    o[6 * N] = __shfl_down_sync(FULL, x, 1);
    o[7 * N] = __shfl_down_sync(FULL, x, 7);
    o[8 * N] = __shfl_down_sync(FULL, x, 2, 4);
    o[9 * N] = __shfl_down_sync(FULL, x, 31);
    o[10 * N] = __shfl_down_sync(FULL, x, 1, 2);
    o[11 * N] = __shfl_down_sync(FULL, x, 5, 16);
    fout[0 * N + g] = __shfl_up_sync(FULL, y, 2);
    fout[1 * N + g] = __shfl_down_sync(FULL, y, 3, 8);
    lout[0 * N + g] = __shfl_down_sync(FULL, z, 4);
    lout[1 * N + g] = __shfl_up_sync(FULL, z, 1, 16);
}
