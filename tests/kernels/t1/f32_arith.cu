// Single-precision add/sub/mul/fma, negation, abs, min/max, copysign, saturate and clamps, with
// subnormal and overflowing results. Every multiply whose result feeds an add is pinned with
// __fmul_rn or fused explicitly with __fmaf_rn/fmaf, so there is no contraction left to the
// compiler and the results are exact.

extern "C" __global__ void f32_basic(const float* a, const float* b, const float* c, float* out,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    float* o = out + i;
    o[0 * n] = x + y;
    o[1 * n] = x - y;
    o[2 * n] = x * y;
    o[3 * n] = __fmaf_rn(x, y, z);
    o[4 * n] = __fmaf_rn(-x, y, z);
    o[5 * n] = __fmaf_rn(x, y, -z);
    o[6 * n] = __fadd_rn(__fmul_rn(x, y), z);
    o[7 * n] = -x;
    o[8 * n] = fabsf(x);
    o[9 * n] = fminf(x, y);
    o[10 * n] = fmaxf(x, y);
    o[11 * n] = __fmaf_rn(x, 2.0f, 1.0f);
    o[12 * n] = x * 0.5f;
    o[13 * n] = __fmul_rn(x, 3.0f) - y;
    o[14 * n] = fabsf(x - y);
    o[15 * n] = copysignf(x, y);
    o[16 * n] = fmaf(x, y, z);
    o[17 * n] = __fsub_rn(x, z);
    o[18 * n] = x + 1.0f;
    o[19 * n] = __fmaf_rn(x, x, -1.0f);
    o[20 * n] = fmaxf(fminf(x, 1.0f), -1.0f);
    o[21 * n] = __saturatef(x);
    o[22 * n] = x > 0.0f ? x : 0.125f * x;
    o[23 * n] = (x + y) + z;
    o[24 * n] = x + (y + z);
}

extern "C" __global__ void f32_special(const float* a, const float* b, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    float* o = out + i;
    o[0 * n] = __fmul_rn(x, 1.0e-38f);
    o[1 * n] = __fmaf_rn(x, 1.0e-38f, 1.0e-39f);
    o[2 * n] = __fmul_rn(x, 1.0e-38f) - __fmul_rn(y, 1.0e-38f);
    o[3 * n] = __fmul_rn(__fmul_rn(x, 3.0e38f), 10.0f);
    float big = __fmul_rn(__fmul_rn(x, 3.0e38f), 16.0f);
    o[4 * n] = big - big;
    o[5 * n] = fminf(big - big, y);
    o[6 * n] = __fmaf_rn(x, 3.0e38f, __fmul_rn(y, 3.0e38f));
    o[7 * n] = __fmul_rn(x, 1.0e-30f) * 1.0e-15f;
    o[8 * n] = 1.0e-45f + __fmul_rn(x, 1.0e-44f);
}
