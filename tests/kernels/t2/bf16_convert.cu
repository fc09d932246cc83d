// bf16 conversions: f32/f64 -> bf16 in every rounding mode (overflow, subnormals), integer
// <-> bf16 with saturation, bf16 -> f32, float2 <-> bfloat162 packing. On sm_75 the
// conversions are emulated with integer code; from sm_80 on they are cvt.*.bf16 instructions.
#include <cuda_bf16.h>

extern "C" __global__ void bf16_convert(const float* a, const int* k, __nv_bfloat16* ob,
                                        float* of, int* oi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i];
    float big = x * 3e38f;           // some overflow f32 itself: inf in, inf out
    // within 0.3% of FLT_MAX, where bf16 rounding overflows for some modes
    float huge = __fmul_rn(copysignf(3.4e38f, x), __fmaf_rn(-fabsf(x), 0.001f, 1.0f));
    float tiny = x * 1e-38f;         // f32 and bf16 subnormals
    double d = (double)x * 1.00000001;
    int ki = k[i];

    ob[0 * n + i] = __float2bfloat16_rn(x);
    ob[1 * n + i] = __float2bfloat16_rz(x);
    ob[2 * n + i] = __float2bfloat16_rd(x);
    ob[3 * n + i] = __float2bfloat16_ru(x);
    ob[4 * n + i] = __float2bfloat16_rn(huge);
    ob[5 * n + i] = __float2bfloat16_rz(huge);
    ob[6 * n + i] = __float2bfloat16_rd(huge);
    ob[7 * n + i] = __float2bfloat16_ru(huge);
    ob[8 * n + i] = __float2bfloat16_rn(tiny);
    ob[9 * n + i] = __float2bfloat16_rz(tiny);
    ob[10 * n + i] = __float2bfloat16_rd(tiny);
    ob[11 * n + i] = __float2bfloat16_ru(tiny);
    ob[12 * n + i] = __float2bfloat16(big);
    ob[13 * n + i] = __double2bfloat16(d);
    ob[14 * n + i] = __int2bfloat16_rn(ki);
    ob[15 * n + i] = __int2bfloat16_rz(ki);
    ob[16 * n + i] = __int2bfloat16_rd(ki);
    ob[17 * n + i] = __int2bfloat16_ru(ki);
    ob[18 * n + i] = __short2bfloat16_rn((short)(ki >> 16));
    ob[19 * n + i] = __uint2bfloat16_rz((unsigned)ki);
    __nv_bfloat162 p = __floats2bfloat162_rn(x, tiny);
    ob[20 * n + i] = __low2bfloat16(p);
    ob[21 * n + i] = __high2bfloat16(p);

    __nv_bfloat16 b = __float2bfloat16_rn(x * 1000.0f);
    float2 f2 = __bfloat1622float2(__halves2bfloat162(b, __float2bfloat16_rn(tiny)));
    of[0 * n + i] = __bfloat162float(b);
    of[1 * n + i] = f2.x + f2.y;
    oi[0 * n + i] = __bfloat162int_rn(b);
    oi[1 * n + i] = __bfloat162int_rz(b);
    oi[2 * n + i] = __bfloat162int_rd(b);
    oi[3 * n + i] = __bfloat162int_ru(b);
    oi[4 * n + i] = __bfloat162short_rz(__float2bfloat16_rn(big));
    oi[5 * n + i] = __bfloat162ushort_rn(b);
    oi[6 * n + i] = (int)__bfloat162uint_rz(b);
    oi[7 * n + i] = (int)__bfloat162ll_rd(b);
    oi[8 * n + i] = __bfloat16_as_short(b);
}
