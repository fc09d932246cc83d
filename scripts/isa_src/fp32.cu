// f32 arithmetic in every rounding mode, comparisons, min/max, conversions, MUFU.
extern "C" __global__ void f32_ops(float *o, const float *a, const float *b, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    float r = __fmaf_rn(x, y, s) + __fmaf_rz(x, 2.5f, y) + __fmaf_rd(x, y, 1.0f) + __fmaf_ru(y, s, x);
    r += __fadd_rz(x, y) + __fadd_rd(x, s) + __fadd_ru(x, 3.0f);
    r *= __fmul_rz(x, y) + __fmul_rd(x, 0.5f) + __fmul_ru(y, s);
    r = fmaxf(r, x) + fminf(y, s) + fabsf(x - y) + copysignf(r, y);
    r = __saturatef(r) + (x > y ? x : -y) + (isnan(x) ? 1.0f : 0.0f);
    r += __fdividef(x, y) + x / y + sqrtf(y) + rsqrtf(x) + __frcp_rn(s);
    r += __expf(x) + __logf(y) + __sinf(x) + __cosf(y) + exp2f(x) + log2f(y);
    r += tanhf(x) + floorf(y) + ceilf(x) + truncf(y) + rintf(x) + roundf(y);
    o[i] = r;
    o[i + n] = (float)(int)x + (float)(unsigned)y + (float)i + __int2float_rz(n) + __uint2float_ru((unsigned)n);
    int t = __float2int_rn(x) + __float2int_rz(y) + __float2int_rd(x) + __float2int_ru(y);
    unsigned ut = __float2uint_rz(x) + __float2uint_rn(y);
    ((int *)o)[i + 2 * n] = t + (int)ut + (int)(long long)x + (int)(unsigned long long)y;
    o[i + 3 * n] = (x < y || x >= s) ? sinf(x) : cosf(y);
}
extern "C" __global__ void f32_cmp(int *o, const float *a, const float *b, int n) {
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    int r = 0;
    if (x == y) r |= 1;
    if (x != y) r |= 2;
    if (x < 1.5f) r |= 4;
    if (!(x >= y)) r |= 8;
    if (x > y && y <= 0.0f) r |= 16;
    if (isinf(x) || isfinite(y)) r |= 32;
    if (!(x <= y) || !(x > 2.0f)) r |= 64;
    o[i] = r + (x > y) + (x != x) + signbit(y);
}
extern "C" __global__ void f32_ftz(float *o, const float *a, int n) {
    int i = threadIdx.x;
    float x = a[i];
    float r;
    asm("mul.ftz.f32 %0, %1, %1;" : "=f"(r) : "f"(x));
    asm("fma.rn.ftz.sat.f32 %0, %1, %0, %1;" : "+f"(r) : "f"(x));
    asm("add.rm.ftz.f32 %0, %0, 0f3F800000;" : "+f"(r));
    asm("min.ftz.NaN.f32 %0, %0, %1;" : "+f"(r) : "f"(x));
    asm("max.xorsign.abs.f32 %0, %0, %1;" : "+f"(r) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm("lg2.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm("sqrt.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm("rcp.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm("sin.approx.ftz.f32 %0, %0;" : "+f"(r));
    asm("tanh.approx.f32 %0, %0;" : "+f"(r));
    int p;
    asm("{.reg .pred q; setp.gtu.ftz.f32 q, %1, %2; selp.s32 %0, 1, 0, q;}" : "=r"(p) : "f"(r), "f"(x));
    o[i] = r + p;
}
