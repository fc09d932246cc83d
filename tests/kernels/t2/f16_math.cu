// The f16/bf16 math functions (hsqrt, hrsqrt, hrcp, hexp/hexp2/hexp10, hlog/hlog2/hlog10,
// hsin/hcos, htanh) in scalar and packed form; the rounding functions (hceil, hfloor, htrunc,
// hrint) are exact. Approximate results are stored as f32 so that tolerances apply.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void f16_math(const __half* a, const __half* b, float* approx,
                                    __half* exact, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half x = a[i], y = b[i];
    __half ax = __habs(x);
    __half2 p = __halves2half2(x, y);
    __half2 q = h2exp(p);
    __half2 r = h2sqrt(__habs2(p));
    approx[0 * n + i] = __half2float(hsqrt(ax));
    approx[1 * n + i] = __half2float(hrsqrt(ax));
    approx[2 * n + i] = __half2float(hrcp(y));
    approx[3 * n + i] = __half2float(hexp(x));
    approx[4 * n + i] = __half2float(hexp2(y));
    approx[5 * n + i] = __half2float(hexp10(x));
    approx[6 * n + i] = __half2float(hlog(ax));
    approx[7 * n + i] = __half2float(hlog2(ax));
    approx[8 * n + i] = __half2float(hlog10(ax));
    approx[9 * n + i] = __half2float(hsin(x));
    approx[10 * n + i] = __half2float(hcos(y));
    approx[11 * n + i] = __half2float(htanh(x));
    approx[12 * n + i] = __low2float(q);
    approx[13 * n + i] = __high2float(q);
    approx[14 * n + i] = __low2float(r);
    approx[15 * n + i] = __high2float(r);
    __half s = __hmul_rn(x, __float2half_rn(7.0f));
    exact[0 * n + i] = hceil(s);
    exact[1 * n + i] = hfloor(s);
    exact[2 * n + i] = htrunc(s);
    exact[3 * n + i] = hrint(s);
}

extern "C" __global__ void bf16_math(const float* a, const float* b, float* approx,
                                     __nv_bfloat16* exact, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat16 x = __float2bfloat16_rn(a[i]), y = __float2bfloat16_rn(b[i]);
    __nv_bfloat16 ax = __habs(x);
    approx[0 * n + i] = __bfloat162float(hsqrt(ax));
    approx[1 * n + i] = __bfloat162float(hrcp(y));
    approx[2 * n + i] = __bfloat162float(hexp(x));
    approx[3 * n + i] = __bfloat162float(hlog2(ax));
    approx[4 * n + i] = __bfloat162float(hsin(x));
    approx[5 * n + i] = __bfloat162float(hcos(y));
    __nv_bfloat16 s = __float2bfloat16_rn(a[i] * 7.0f);
    exact[0 * n + i] = hceil(s);
    exact[1 * n + i] = hfloor(s);
    exact[2 * n + i] = htrunc(s);
    exact[3 * n + i] = hrint(s);
}
