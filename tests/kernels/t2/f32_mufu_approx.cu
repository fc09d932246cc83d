// The PTX approximate instructions through inline asm, one MUFU (or short sequence) each:
// rcp/rsqrt/sqrt/ex2/lg2/sin/cos/tanh.approx.f32, div.approx/div.full.f32, ex2/tanh.approx.f16
// and f16x2, rcp.approx.ftz.f64 and rsqrt.approx.f64.
#include <cuda_fp16.h>

#define UNARY_F32(name, insn)                                               \
    __device__ __forceinline__ float name(float x)                          \
    {                                                                       \
        float r;                                                            \
        asm(insn " %0, %1;" : "=f"(r) : "f"(x));                            \
        return r;                                                           \
    }

UNARY_F32(rcp_approx, "rcp.approx.f32")
UNARY_F32(rsqrt_approx, "rsqrt.approx.f32")
UNARY_F32(sqrt_approx, "sqrt.approx.f32")
UNARY_F32(ex2_approx, "ex2.approx.f32")
UNARY_F32(lg2_approx, "lg2.approx.f32")
UNARY_F32(sin_approx, "sin.approx.f32")
UNARY_F32(cos_approx, "cos.approx.f32")
UNARY_F32(tanh_approx, "tanh.approx.f32")

extern "C" __global__ void f32_mufu_approx(const float* a, const float* b, const double* d,
                                           float* rel, float* abs_, float* th, __half* h,
                                           double* dd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    float ax = fabsf(x);
    float q1, q2;
    asm("div.approx.f32 %0, %1, %2;" : "=f"(q1) : "f"(x), "f"(y));
    asm("div.full.f32 %0, %1, %2;" : "=f"(q2) : "f"(x), "f"(y));
    rel[0 * n + i] = rcp_approx(y);
    rel[1 * n + i] = rsqrt_approx(ax);
    rel[2 * n + i] = sqrt_approx(ax);
    rel[3 * n + i] = ex2_approx(y);
    rel[4 * n + i] = q1;
    rel[5 * n + i] = q2;
    abs_[0 * n + i] = lg2_approx(ax);
    abs_[1 * n + i] = sin_approx(x);
    abs_[2 * n + i] = cos_approx(y);
    th[i] = tanh_approx(x);

    unsigned short hx = __half_as_ushort(__float2half_rn(x)), r1, r2;
    unsigned hx2 = (unsigned)__half_as_ushort(__float2half_rn(y)) << 16 | hx, r3;
    asm("ex2.approx.f16 %0, %1;" : "=h"(r1) : "h"(hx));
    asm("tanh.approx.f16 %0, %1;" : "=h"(r2) : "h"(hx));
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(r3) : "r"(hx2));
    h[0 * n + i] = __ushort_as_half(r1);
    h[1 * n + i] = __ushort_as_half(r2);
    h[2 * n + i] = __ushort_as_half((unsigned short)r3);
    h[3 * n + i] = __ushort_as_half((unsigned short)(r3 >> 16));

    double v = d[i], r4, r5;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r4) : "d"(v));
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(r5) : "d"(fabs(v)));
    dd[0 * n + i] = r4;
    dd[1 * n + i] = r5;
}
