// Values that are uniform across a warp or block (derived only from blockIdx, blockDim, gridDim,
// kernel parameters and constants), which the compiler can keep in uniform registers: a loop with a
// block-dependent trip count, a uniform branch, uniform address arithmetic into a table, and a
// per-block seed mixed with per-thread data.

extern "C" __global__ void uniform_mix(const unsigned* table, const unsigned* data, unsigned* out,
                                       unsigned seed, int stride)
{
    unsigned b = blockIdx.x;
    unsigned h = seed ^ (b * 0x9E3779B9u);
    for (unsigned k = 0; k < b + 3; ++k)
        h = (h << 5) ^ (h >> 27) ^ table[(b * (unsigned)stride + k) & 63u];
    unsigned base = b * blockDim.x;
    unsigned v = data[base + threadIdx.x];
    unsigned r;
    if (b & 1)
        r = v * h;
    else
        r = v ^ h ^ gridDim.x;
    out[base + threadIdx.x] = r + table[(h >> 26) & 63u];
}
