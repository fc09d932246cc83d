// Matrix transposes of a non-square [rows x cols] matrix: a naive one (strided reads), a tiled one
// with a 32x33 padded shared tile and 32x8 threads looping over the tile rows (coalesced reads and
// writes), for 4-byte floats and 8-byte integers.

#define TD 32
#define BR 8

extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}

template <typename T>
__global__ void transpose_tiled(const T* in, T* out, int rows, int cols)
{
    __shared__ T tile[TD][TD + 1];
    int x = blockIdx.x * TD + threadIdx.x, y = blockIdx.y * TD + threadIdx.y;
    for (int j = 0; j < TD; j += BR) {
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    }
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x;
    y = blockIdx.x * TD + threadIdx.y;
    for (int j = 0; j < TD; j += BR) {
        if (x < rows && y + j < cols)
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

template __global__ void transpose_tiled<float>(const float*, float*, int, int);
template __global__ void transpose_tiled<long long>(const long long*, long long*, int, int);
