// sm_90 conversions and bf16 MUFU: cvt.rn/rz.tf32.f32, cvt.rn.bf16.f16 and cvt.rn.f16.bf16 (the
// direct f16 <-> bf16 forms), cvt.f32.bf16, and tanh.approx / ex2.approx.ftz on bf16 and bf16x2.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void cvt_tf32_sm90(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned r0, r1;
    asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r0) : "f"(x[i]));
    asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(r1) : "f"(x[i]));
    out[0 * n + i] = __uint_as_float(r0);
    out[1 * n + i] = __uint_as_float(r1);
}

// h: f16 operands; b: bf16 operands (bit patterns).
extern "C" __global__ void cvt_f16_bf16(const unsigned short* h, const unsigned short* b,
                                        unsigned short* h2b, unsigned short* b2h, float* b2f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned short r0, r1;
    float f;
    asm("cvt.rn.bf16.f16 %0, %1;" : "=h"(r0) : "h"(h[i]));
    asm("cvt.rn.f16.bf16 %0, %1;" : "=h"(r1) : "h"(b[i]));
    asm("cvt.f32.bf16 %0, %1;" : "=f"(f) : "h"(b[i]));
    h2b[i] = r0;
    b2h[i] = r1;
    b2f[i] = f;
}

// Results widened to f32 (exactly) so they can be compared within the MUFU error bound.
extern "C" __global__ void mufu_bf16(const unsigned short* b, float* th, float* ex, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned short v = b[i], r0, r1;
    unsigned v2 = (unsigned)v | ((unsigned)b[(i + 1) % n] << 16), r2, r3;
    asm("tanh.approx.bf16 %0, %1;" : "=h"(r0) : "h"(v));
    asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(r1) : "h"(v));
    asm("tanh.approx.bf16x2 %0, %1;" : "=r"(r2) : "r"(v2));
    asm("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(r3) : "r"(v2));
    th[0 * n + i] = __uint_as_float((unsigned)r0 << 16);
    th[1 * n + i] = __uint_as_float(r2 << 16);
    th[2 * n + i] = __uint_as_float(r2 & 0xffff0000u);
    ex[0 * n + i] = __uint_as_float((unsigned)r1 << 16);
    ex[1 * n + i] = __uint_as_float(r3 << 16);
    ex[2 * n + i] = __uint_as_float(r3 & 0xffff0000u);
}
