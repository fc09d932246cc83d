// Static __shared__ arrays: a block-wide reversal through shared memory, shared arrays of 8/16/64-bit
// and float elements read back at permuted indices (LDS/STS of every width), and a padded 2D tile
// ([16][17]) used to rotate a 16x16 block.

extern "C" __global__ void smem_reverse(const int* in, int* out)
{
    __shared__ int buf[128];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    buf[t] = in[base + t];
    __syncthreads();
    out[base + t] = buf[blockDim.x - 1 - t];
}

extern "C" __global__ void smem_types(const int* in, int* out, float* fout)
{
    __shared__ signed char s8[256];
    __shared__ unsigned short u16[256];
    __shared__ long long s64[256];
    __shared__ float f32[256];
    int t = threadIdx.x;
    int x = in[t];
    s8[t] = (signed char)x;
    u16[t] = (unsigned short)(x >> 8);
    s64[t] = (long long)x * in[(t + 1) & 255];
    f32[t] = (float)(x >> 12);
    __syncthreads();
    out[t] = s8[(t * 5) & 255] + u16[255 - t] + (int)(s64[(t + 17) & 255] >> 36);
    fout[t] = f32[(t * 3) & 255] - f32[t ^ 1];
}

// 16x16 threads per block; each block rotates its 16x16 tile of a [32 x 32] matrix by 90 degrees.
extern "C" __global__ void smem_rotate_tile(const float* in, float* out)
{
    __shared__ float tile[16][17];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    tile[ty][tx] = in[row * 32 + col];
    __syncthreads();
    out[row * 32 + col] = tile[15 - tx][ty];
}
