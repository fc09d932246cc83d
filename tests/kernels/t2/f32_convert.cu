// f32 <-> integer conversions in every rounding mode (cvt.rni/rzi/rmi/rpi, saturating, and
// integer -> f32 with rn/rz/rm/rp), plus bit casts.
extern "C" __global__ void f32_convert(const float* a, const int* k, const long long* l,
                                       int* oi, unsigned* ou, long long* oll,
                                       unsigned long long* oull, float* of, float scale, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i] * scale;        // |x| up to a few thousand
    float big = x * 1e12f;         // beyond int32 but inside int64
    float huge = x * 1e16f;        // some beyond int64: saturates
    int ki = k[i];
    unsigned ku = (unsigned)ki;
    long long kl = l[i];
    unsigned long long kul = (unsigned long long)kl;

    oi[0 * n + i] = __float2int_rn(x);
    oi[1 * n + i] = __float2int_rz(x);
    oi[2 * n + i] = __float2int_rd(x);
    oi[3 * n + i] = __float2int_ru(x);
    oi[4 * n + i] = (int)(x * 1e6f);            // saturates for |x| > 2147
    oi[5 * n + i] = __float_as_int(x);
    ou[0 * n + i] = __float2uint_rn(x);          // negatives saturate to 0
    ou[1 * n + i] = __float2uint_rz(x);
    ou[2 * n + i] = __float2uint_rd(x);
    ou[3 * n + i] = __float2uint_ru(x);
    oll[0 * n + i] = __float2ll_rn(big);
    oll[1 * n + i] = __float2ll_rz(huge);
    oll[2 * n + i] = __float2ll_rd(big);
    oll[3 * n + i] = __float2ll_ru(big);
    oull[0 * n + i] = __float2ull_rn(big);
    oull[1 * n + i] = __float2ull_rz(huge);
    oull[2 * n + i] = __float2ull_rd(huge);
    oull[3 * n + i] = __float2ull_ru(big);

    of[0 * n + i] = __int2float_rn(ki);
    of[1 * n + i] = __int2float_rz(ki);
    of[2 * n + i] = __int2float_rd(ki);
    of[3 * n + i] = __int2float_ru(ki);
    of[4 * n + i] = __uint2float_rn(ku);
    of[5 * n + i] = __uint2float_rz(ku);
    of[6 * n + i] = __uint2float_rd(ku);
    of[7 * n + i] = __uint2float_ru(ku);
    of[8 * n + i] = __ll2float_rn(kl);
    of[9 * n + i] = __ll2float_rz(kl);
    of[10 * n + i] = __ll2float_rd(kl);
    of[11 * n + i] = __ll2float_ru(kl);
    of[12 * n + i] = __ull2float_rn(kul);
    of[13 * n + i] = __ull2float_rz(kul);
    of[14 * n + i] = __ull2float_rd(kul);
    of[15 * n + i] = __ull2float_ru(kul);
    of[16 * n + i] = __int_as_float(ki & 0x807fffff | 0x3f000000);   // bits -> a float in +-[0.5, 1)
    of[17 * n + i] = (float)(ki >> 12);                              // exact
}
