// Loops with compile-time trip counts: fully unrolled (#pragma unroll), partially unrolled with a
// remainder (#pragma unroll 4 over 37 iterations), kept as a loop (#pragma unroll 1), left to the
// compiler's heuristics, nested constant loops, and a pinned float recurrence in a counted loop.

extern "C" __global__ void loop_full(const unsigned* a, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], h = 0;
#pragma unroll
    for (int k = 0; k < 16; ++k)
        h = (h ^ (x >> k)) * 0x01000193u + (unsigned)k;
    out[i] = h;
}

extern "C" __global__ void loop_partial(const unsigned* a, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], h = 7;
#pragma unroll 4
    for (int k = 0; k < 37; ++k)
        h = h * 31u + ((x << (k & 31)) | (x >> ((32 - k) & 31)));
    out[i] = h;
}

extern "C" __global__ void loop_kept(const unsigned* a, const float* f, unsigned* out,
                                     float* fout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], bits = 0;
    float acc = 0.0f, v = f[i];
#pragma unroll 1
    for (int k = 0; k < 64; ++k) {
        bits += (x >> (k & 31)) & 1u;
        acc = __fmaf_rn(acc, 0.5f, v);
    }
    out[i] = bits;
    fout[i] = acc;
}

extern "C" __global__ void loop_default(const int* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    unsigned s = 0;
    for (int k = 0; k < 100; ++k)
        s += (unsigned)(x >> (k % 29)) ^ (unsigned)k;
    out[i] = (int)s;
}

// Each thread fills a 4x8 tile of a [n x 32] output from nested constant loops.
extern "C" __global__ void loop_nested(const unsigned* a, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i];
    for (int r = 0; r < 4; ++r) {
        unsigned row = x + (unsigned)r * 0x9E3779B9u;
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            row = (row << 3) ^ (row >> 5) ^ (unsigned)c;
            out[32 * i + 8 * r + c] = row;
        }
    }
}
