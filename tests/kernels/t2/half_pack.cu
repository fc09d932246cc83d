// f16x2 / bf16x2 packs from f32 pairs (F2FP): cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32,
// scalar cvt.rn.relu / cvt.rz to f16 and bf16, and cvt.rna{.satfinite}.tf32.f32. Operands: ties
// at f16/bf16/tf32 precision and at the f16 subnormal spacing, the largest finite values and
// values just past them, infinities, NaN, signed zeros and random values over a wide range.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define PACK(insn, a, b, r) asm(insn " %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b))

// x[2i] goes to the upper half, x[2i + 1] to the lower half (cvt's operand order: d = {a, b}).
extern "C" __global__ void pack_f16x2(const float* x, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[2 * i], b = x[2 * i + 1];
    unsigned r0, r1, r2, r3, r4;
    PACK("cvt.rn.f16x2.f32", a, b, r0);
    PACK("cvt.rz.f16x2.f32", a, b, r1);
    PACK("cvt.rn.relu.f16x2.f32", a, b, r2);
    PACK("cvt.rn.satfinite.f16x2.f32", a, b, r3);
    PACK("cvt.rn.satfinite.relu.f16x2.f32", a, b, r4);
    out[0 * n + i] = r0;
    out[1 * n + i] = r1;
    out[2 * n + i] = r2;
    out[3 * n + i] = r3;
    out[4 * n + i] = r4;
}

extern "C" __global__ void pack_bf16x2(const float* x, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[2 * i], b = x[2 * i + 1];
    unsigned r0, r1, r2, r3;
    PACK("cvt.rn.bf16x2.f32", a, b, r0);
    PACK("cvt.rz.bf16x2.f32", a, b, r1);
    PACK("cvt.rn.relu.bf16x2.f32", a, b, r2);
    PACK("cvt.rn.satfinite.bf16x2.f32", a, b, r3);
    out[0 * n + i] = r0;
    out[1 * n + i] = r1;
    out[2 * n + i] = r2;
    out[3 * n + i] = r3;
}

extern "C" __global__ void cvt_half_scalar(const float* x, unsigned short* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i];
    unsigned short r0, r1, r2, r3;
    asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(r0) : "f"(a));
    asm("cvt.rn.relu.bf16.f32 %0, %1;" : "=h"(r1) : "f"(a));
    asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(r2) : "f"(a));
    asm("cvt.rz.f16.f32 %0, %1;" : "=h"(r3) : "f"(a));
    out[0 * n + i] = r0;
    out[1 * n + i] = r1;
    out[2 * n + i] = r2;
    out[3 * n + i] = r3;
}

extern "C" __global__ void cvt_tf32_rna(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i];
    unsigned r0, r1;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r0) : "f"(a));
    asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(r1) : "f"(a));
    out[0 * n + i] = __uint_as_float(r0);
    out[1 * n + i] = __uint_as_float(r1);
}
