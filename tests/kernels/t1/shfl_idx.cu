// __shfl_sync (shfl.sync.idx): broadcast, reversal, rotation with a source lane past 31, widths 16,
// 8, 4 and 2 with in-segment and out-of-segment (negative, large) source lanes, data-dependent
// source lanes; on int, float and 64-bit values (two 32-bit shuffles).

#define FULL 0xffffffffu

extern "C" __global__ void shfl_idx(const int* a, const float* f, const long long* l, int* out,
                                    float* fout, long long* lout)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int N = gridDim.x * blockDim.x;
    int lane = threadIdx.x & 31;
    int x = a[g];
    float y = f[g];
    long long z = l[g];
    out[0 * N + g] = __shfl_sync(FULL, x, 0);
    out[1 * N + g] = __shfl_sync(FULL, x, 31 - lane);
    out[2 * N + g] = __shfl_sync(FULL, x, lane + 1);
    out[3 * N + g] = __shfl_sync(FULL, x, lane ^ 5, 16);
    out[4 * N + g] = __shfl_sync(FULL, x, 3, 8);
    out[5 * N + g] = __shfl_sync(FULL, x, -1, 4);
    out[6 * N + g] = __shfl_sync(FULL, x, x & 31);
    out[7 * N + g] = __shfl_sync(FULL, x, lane * 3, 32);
    out[8 * N + g] = __shfl_sync(FULL, x, lane + 9, 8);
    out[9 * N + g] = __shfl_sync(FULL, x, 1, 2);
    fout[0 * N + g] = __shfl_sync(FULL, y, (lane + 7) & 31);
    fout[1 * N + g] = __shfl_sync(FULL, y, 2 * lane, 16);
    lout[0 * N + g] = __shfl_sync(FULL, z, 31 - lane);
    lout[1 * N + g] = __shfl_sync(FULL, z, lane >> 1, 4);
}
