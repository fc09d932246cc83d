// f16 / bf16 packed math, conversions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void half_ops(__half2 *o, const __half2 *a, const __half2 *b, __nv_bfloat162 *bo, const __nv_bfloat162 *ba, float *f, int n) {
    int i = threadIdx.x;
    __half2 x = a[i], y = b[i];
    __half2 r = __hfma2(x, y, x) + __hmul2(x, y) + __hadd2(x, __float2half2_rn(1.5f));
    r = __hmax2(r, x) + __hmin2(y, r) + __habs2(x) + __hneg2(y);
    r = __hsub2_sat(r, x);
    if (__hbgt2(x, y)) r = h2exp(r);
    o[i] = r;
    __nv_bfloat162 bx = ba[i];
    bo[i] = __hfma2(bx, bx, bx) + __floats2bfloat162_rn(f[i], f[i + 1]);
    f[i] = __half2float(__low2half(x)) + __bfloat162float(__high2bfloat16(bx)) + __half2float(__float2half_rz(f[i]));
    __half h = __float2half(f[i+2]);
    f[i + 3] = (float)__hdiv(h, __low2half(y)) + __half2float(hsqrt(h));
    ((int *)f)[i + 4] = __half2int_rz(h) + __half2short_rn(h) + (int)__half2uint_rd(h);
    o[i + n] = __floats2half2_rn(f[i], f[i+5]);
    o[i + 2*n] = __halves2half2(__int2half_rn(i), __uint2half_rn(n));
}
