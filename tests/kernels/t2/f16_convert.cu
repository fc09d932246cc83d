// f16 conversions: f32/f64 -> f16 in every rounding mode (overflow, subnormal and underflow
// results), integer <-> f16 in every mode with saturation, f16 -> f32.
#include <cuda_fp16.h>

extern "C" __global__ void f16_convert(const float* a, const int* k, __half* oh, float* of,
                                       int* oi, long long* oll, float scale, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i] * scale;          // |x| up to about 1000
    float big = x * 100.0f;          // some beyond f16's 65504
    float tiny = x * 1e-9f;          // f16 subnormals and underflow
    double d = (double)x * 1.0000001;
    int ki = k[i];
    int ks = ki >> 16;               // -32768 .. 32767: rounds above 2048

    oh[0 * n + i] = __float2half_rn(x);
    oh[1 * n + i] = __float2half_rz(x);
    oh[2 * n + i] = __float2half_rd(x);
    oh[3 * n + i] = __float2half_ru(x);
    oh[4 * n + i] = __float2half_rn(big);
    oh[5 * n + i] = __float2half_rz(big);
    oh[6 * n + i] = __float2half_rd(big);
    oh[7 * n + i] = __float2half_ru(big);
    oh[8 * n + i] = __float2half_rn(tiny);
    oh[9 * n + i] = __float2half_rz(tiny);
    oh[10 * n + i] = __float2half_rd(tiny);
    oh[11 * n + i] = __float2half_ru(tiny);
    oh[12 * n + i] = __double2half(d);
    oh[13 * n + i] = __int2half_rn(ks);
    oh[14 * n + i] = __int2half_rz(ks);
    oh[15 * n + i] = __int2half_rd(ks);
    oh[16 * n + i] = __int2half_ru(ks);
    oh[17 * n + i] = __int2half_rn(ki);              // overflows to inf
    oh[18 * n + i] = __int2half_rz(ki);              // overflows to +-65504
    oh[19 * n + i] = __short2half_rn((short)ks);
    oh[20 * n + i] = __uint2half_rd((unsigned)ki);
    oh[21 * n + i] = __ll2half_ru((long long)ki * 3);

    __half h = __float2half_rn(x);
    __half hb = __float2half_rn(big);
    of[0 * n + i] = __half2float(h);
    of[1 * n + i] = __half2float(__float2half_rn(tiny));
    oi[0 * n + i] = __half2int_rn(h);
    oi[1 * n + i] = __half2int_rz(h);
    oi[2 * n + i] = __half2int_rd(h);
    oi[3 * n + i] = __half2int_ru(h);
    oi[4 * n + i] = __half2short_rz(hb);
    oi[5 * n + i] = __half2ushort_rn(h);            // negatives saturate to 0
    oi[6 * n + i] = __half2char_rz(h);              // saturates to -128..127
    oi[7 * n + i] = __half2uchar_rz(h);
    oi[8 * n + i] = (int)__half2uint_ru(hb);        // inf saturates
    oll[0 * n + i] = __half2ll_rd(hb);
    oll[1 * n + i] = (long long)__half2ull_rn(h);
}
