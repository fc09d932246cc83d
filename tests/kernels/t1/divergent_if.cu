// Divergent control flow inside warps: nested if/else on data and lane bits with unequal path
// lengths (one path runs a loop), float branches merged after reconvergence, and per-lane paths
// chosen by lane id modulo 3 that write different outputs.

extern "C" __global__ void diverge_nested(const int* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    unsigned r;
    if (x & 1) {
        if (x & 2) {
            r = (unsigned)(x >> 3);
        } else {
            r = 0;
            for (int k = 0; k < (x & 0x1c) >> 2; ++k)
                r += (unsigned)k * (unsigned)x;
        }
    } else if (threadIdx.x & 4) {
        r = ~(unsigned)x;
    } else {
        r = (unsigned)x ^ ((unsigned)x << 1);
    }
    out[i] = (int)(r + (unsigned)threadIdx.x);
}

extern "C" __global__ void diverge_float(const float* a, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y;
    if (x > 0.5f)
        y = __fmul_rn(x, x);
    else if (x < -0.5f)
        y = __fmaf_rn(x, 0.25f, 1.0f);
    else
        y = -x;
    out[i] = y + 1.0f;
}

extern "C" __global__ void diverge_lane(const unsigned* a, unsigned* out)
{
    int t = threadIdx.x;
    unsigned x = a[t];
    unsigned lane = t & 31;
    if (lane % 3 == 0) {
        out[t] = x * 3u;
    } else if (lane % 3 == 1) {
        out[t] = x >> (lane & 15);
        out[t + blockDim.x] = lane;
    } else {
        unsigned v = x;
        for (unsigned k = 0; k < lane; ++k)
            v = (v >> 1) ^ (0xEDB88320u & (0u - (v & 1u)));
        out[t] = v;
    }
}
