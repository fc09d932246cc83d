// 2D 5-point stencil on a [40 x 28] grid with 16x16 blocks: each block loads an 18x18 tile with a
// one-cell halo into shared memory (edge threads load the halo, cells outside the grid read as
// zero), then computes a pinned float Laplacian and an integer 3x3 box sum over a second tile.

#define TILE 16

extern "C" __global__ void stencil_2d(const float* in, const int* iin, float* out, int* iout,
                                      int rows, int cols)
{
    __shared__ float t[TILE + 2][TILE + 2];
    __shared__ int it[TILE + 2][TILE + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx, r = blockIdx.y * TILE + ty;
    // Each thread loads its cell and, on the tile's border, the neighbouring halo cells.
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            bool border_x = dx == 0 || (dx < 0 ? tx == 0 : tx == TILE - 1);
            bool border_y = dy == 0 || (dy < 0 ? ty == 0 : ty == TILE - 1);
            if (!border_x || !border_y)
                continue;
            int rr = r + dy, cc = c + dx;
            bool inside = rr >= 0 && rr < rows && cc >= 0 && cc < cols;
            t[ty + 1 + dy][tx + 1 + dx] = inside ? in[rr * cols + cc] : 0.0f;
            it[ty + 1 + dy][tx + 1 + dx] = inside ? (iin[rr * cols + cc] >> 8) : 0;
        }
    }
    __syncthreads();
    if (r >= rows || c >= cols)
        return;
    float centre = t[ty + 1][tx + 1];
    float lap = __fadd_rn(__fadd_rn(t[ty][tx + 1], t[ty + 2][tx + 1]),
                          __fadd_rn(t[ty + 1][tx], t[ty + 1][tx + 2]));
    out[r * cols + c] = __fmaf_rn(-4.0f, centre, lap);
    int box = 0;
#pragma unroll
    for (int dy = 0; dy < 3; ++dy)
#pragma unroll
        for (int dx = 0; dx < 3; ++dx)
            box += it[ty + dy][tx + dx];
    iout[r * cols + c] = box;
}
