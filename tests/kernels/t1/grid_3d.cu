// 2D and 3D launches: a 3D 7-point integer stencil over an 8x8x8 volume (4x4x4 blocks in a 2x2x2
// grid) with clamped boundaries, and a 2D grid of 2D blocks computing per-element coordinates and a
// row/column checksum of a non-square matrix with partial edge blocks.

extern "C" __global__ void stencil3d_i32(const int* in, int* out)
{
    const int N = 8;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    auto at = [&](int xx, int yy, int zz) {
        xx = min(max(xx, 0), N - 1);
        yy = min(max(yy, 0), N - 1);
        zz = min(max(zz, 0), N - 1);
        return in[(zz * N + yy) * N + xx] >> 8;
    };
    int c = at(x, y, z);
    int s = 6 * c - at(x - 1, y, z) - at(x + 1, y, z) - at(x, y - 1, z) - at(x, y + 1, z) -
            at(x, y, z - 1) - at(x, y, z + 1);
    out[(z * N + y) * N + x] = s;
}

// [rows x cols] matrix, 16x8 blocks; edge blocks are partial.
extern "C" __global__ void grid2d_coords(const unsigned* in, unsigned* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    unsigned v = in[r * cols + c];
    out[r * cols + c] = v ^ ((unsigned)r << 16 | (unsigned)c) ^ (blockIdx.y * gridDim.x + blockIdx.x);
}
