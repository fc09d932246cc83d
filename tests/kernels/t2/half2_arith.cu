// Packed __half2 arithmetic (HADD2/HMUL2/HFMA2 on both lanes), lane shuffles and packing,
// comparisons returning masks and half2 booleans, float2 <-> half2 conversions.
#include <cuda_fp16.h>

extern "C" __global__ void half2_arith(const __half2* a, const __half2* b, const __half2* c,
                                       const float2* f, __half2* out, float2* outf,
                                       unsigned* masks, __half2* quot, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half2 x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __hadd2_rn(x, y);
    out[1 * n + i] = __hsub2_rn(x, y);
    out[2 * n + i] = __hmul2_rn(x, y);
    out[3 * n + i] = __hfma2(x, y, z);
    out[4 * n + i] = __hfma2_sat(x, y, z);
    out[5 * n + i] = __hmax2(x, z);
    out[6 * n + i] = __hmin2(y, z);
    out[7 * n + i] = __hneg2(__habs2(x));
    out[8 * n + i] = __lowhigh2highlow(x);
    out[9 * n + i] = __lows2half2(x, y);
    out[10 * n + i] = __highs2half2(y, z);
    out[11 * n + i] = __halves2half2(__high2half(z), __low2half(x));
    out[12 * n + i] = __float22half2_rn(f[i]);
    out[13 * n + i] = __floats2half2_rn(f[i].y, f[i].x);
    out[14 * n + i] = __heq2(x, y) + __hlt2(x, z);    // 1.0/0.0 per lane, summed
    out[15 * n + i] = __hmul2_rn(__hadd2_rn(x, z), __hsub2_rn(y, z));
    outf[i] = __half22float2(__hmul2_rn(x, z));
    masks[0 * n + i] = __hlt2_mask(x, y);
    masks[1 * n + i] = __hge2_mask(y, z);
    masks[2 * n + i] = __hbeq2(x, x) | (__hblt2(x, y) << 1) | (__hbgt2(y, z) << 2);
    quot[i] = __h2div(x, y);
}
