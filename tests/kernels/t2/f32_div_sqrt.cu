// IEEE f32 division, square root and reciprocal (default -prec-div/-prec-sqrt: div.rn, sqrt.rn,
// rcp.rn with their subnormal slow paths), the correctly rounded __frsqrt_rn, and all of them on
// special and boundary operands.
#include <cfloat>

extern "C" __global__ void f32_div_sqrt(const float* a, const float* b, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    out[0 * n + i] = x / y;
    out[1 * n + i] = sqrtf(fabsf(x));
    out[2 * n + i] = 1.0f / y;
    out[3 * n + i] = __fdiv_rn(x, y * 3.0f);
    out[4 * n + i] = __fsqrt_rn(fabsf(y));
    out[5 * n + i] = __frcp_rn(x);
    out[6 * n + i] = __frsqrt_rn(fabsf(x));
    out[7 * n + i] = (x * 1e-30f) / (y * 1e10f);   // subnormal quotients
    out[8 * n + i] = sqrtf(fabsf(x) * 1e-40f);     // subnormal operand
    out[9 * n + i] = 1.0f / (y * 1e38f);           // reciprocal of huge values: subnormal
}

// Every pair of 16 special and boundary values (one per thread): x = T[i % 16], y = T[i / 16].
__constant__ float kSpecial[16] = {
    0.0f, -0.0f, __builtin_huge_valf(), -__builtin_huge_valf(), __builtin_nanf(""), 1.0f, -1.0f,
    FLT_MIN, 1.40129846e-45f, 5.87747175e-39f, FLT_MAX, -FLT_MAX, 3.0f, 0.1f, -2.5f, 1e30f};

extern "C" __global__ void f32_special_values(float* out, int* flags)
{
    int i = threadIdx.x;
    float x = kSpecial[i & 15], y = kSpecial[i >> 4];
    out[0 * 256 + i] = x / y;
    out[1 * 256 + i] = sqrtf(x);
    out[2 * 256 + i] = 1.0f / x;
    out[3 * 256 + i] = __fmul_rn(x, y);
    out[4 * 256 + i] = __fadd_rn(x, y);
    out[5 * 256 + i] = __fmaf_rn(x, y, 1.0f);
    out[6 * 256 + i] = __frsqrt_rn(x);
    flags[i] = (x < y) | ((x == y) << 1) | ((x != y) << 2) | (isnan(x) << 3) | (isinf(y) << 4) |
               (signbit(x) ? 32 : 0) | (isfinite(x / y) << 6) | ((x <= y) << 7);
}
