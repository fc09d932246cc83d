// FP8 conversions (sm_89+): cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2} (F2FP packs) and
// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} (unpacks), plus the cuda_fp8.h conversions from bf16x2 and
// to float. Operands: round-to-nearest-even ties at both formats' subnormal and normal spacings,
// the largest finite values and the values just past them (saturated), infinities, NaN, signed
// zeros, and random values over the whole exponent range of both formats.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

// x[2i] goes to the upper byte, x[2i + 1] to the lower byte (cvt's operand order: d = {a, b}).
extern "C" __global__ void fp8x2_from_f32(const float* x, unsigned short* e4, unsigned short* e5,
                                          unsigned short* e4r, unsigned short* e5r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[2 * i], b = x[2 * i + 1];
    unsigned short r0, r1, r2, r3;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r0) : "f"(a), "f"(b));
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r1) : "f"(a), "f"(b));
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(r2) : "f"(a), "f"(b));
    asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(r3) : "f"(a), "f"(b));
    e4[i] = r0;
    e5[i] = r1;
    e4r[i] = r2;
    e5r[i] = r3;
}

// h[2i] is the low half of the f16x2 operand, h[2i + 1] the high half.
extern "C" __global__ void fp8x2_from_f16x2(const __half* h, unsigned short* e4, unsigned short* e5,
                                            unsigned short* e5r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = (unsigned)__half_as_ushort(h[2 * i]) |
                 ((unsigned)__half_as_ushort(h[2 * i + 1]) << 16);
    unsigned short r0, r1, r2;
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(r0) : "r"(v));
    asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(r1) : "r"(v));
    asm("cvt.rn.satfinite.relu.e5m2x2.f16x2 %0, %1;" : "=h"(r2) : "r"(v));
    e4[i] = r0;
    e5[i] = r1;
    e5r[i] = r2;
}

// Every fp8 code in each byte: the low half of the result comes from the low byte.
extern "C" __global__ void fp8x2_to_f16x2(const unsigned short* p, __half* e4, __half* e5,
                                          __half* e4r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned short v = p[i];
    unsigned r0, r1, r2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r0) : "h"(v));
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r1) : "h"(v));
    asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(r2) : "h"(v));
    e4[2 * i] = __ushort_as_half((unsigned short)r0);
    e4[2 * i + 1] = __ushort_as_half((unsigned short)(r0 >> 16));
    e5[2 * i] = __ushort_as_half((unsigned short)r1);
    e5[2 * i + 1] = __ushort_as_half((unsigned short)(r1 >> 16));
    e4r[2 * i] = __ushort_as_half((unsigned short)r2);
    e4r[2 * i + 1] = __ushort_as_half((unsigned short)(r2 >> 16));
}

// cuda_fp8.h: bf16x2 -> e4m3x2 / e5m2x2 (saturating), and fp8 -> float through the fp8 types.
extern "C" __global__ void fp8_cuda_api(const unsigned short* bf, unsigned short* e4,
                                        unsigned short* e5, float* back4, float* back5, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat162_raw v;
    v.x = bf[2 * i];
    v.y = bf[2 * i + 1];
    __nv_fp8x2_storage_t a = __nv_cvt_bfloat16raw2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    __nv_fp8x2_storage_t b = __nv_cvt_bfloat16raw2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
    e4[i] = a;
    e5[i] = b;
    __nv_fp8_e4m3 lo4, hi4;
    __nv_fp8_e5m2 lo5, hi5;
    lo4.__x = (__nv_fp8_storage_t)(a & 0xff);
    hi4.__x = (__nv_fp8_storage_t)(a >> 8);
    lo5.__x = (__nv_fp8_storage_t)(b & 0xff);
    hi5.__x = (__nv_fp8_storage_t)(b >> 8);
    back4[2 * i] = (float)lo4;
    back4[2 * i + 1] = (float)hi4;
    back5[2 * i] = (float)lo5;
    back5[2 * i + 1] = (float)hi5;
}
