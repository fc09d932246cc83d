// IEEE f64 division, square root and reciprocal (div.rn/sqrt.rn/rcp.rn: the MUFU.RCP64H/RSQ64H
// seeds plus Newton steps and the slow paths for tiny, huge and special operands), and the
// approximate rsqrt.
#include <cfloat>

extern "C" __global__ void f64_div_sqrt(const double* a, const double* b, double* out,
                                        double* approx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i];
    out[0 * n + i] = x / y;
    out[1 * n + i] = sqrt(fabs(x));
    out[2 * n + i] = 1.0 / y;
    out[3 * n + i] = (x * 1e-300) / (y * 1e10);   // subnormal quotients
    out[4 * n + i] = sqrt(fabs(x) * 1e-310);      // subnormal operand
    approx[i] = rsqrt(fabs(y));
}

// Every pair of 16 special and boundary values (one per thread): x = T[i % 16], y = T[i / 16].
__constant__ double kSpecial[16] = {
    0.0, -0.0, __builtin_huge_val(), -__builtin_huge_val(), __builtin_nan(""), 1.0, -1.0,
    DBL_MIN, 4.9406564584124654e-324, 1.4821969375237396e-308, DBL_MAX, -DBL_MAX,
    3.0, 0.1, -2.5, 1e300};

extern "C" __global__ void f64_special_values(double* out, int* flags)
{
    int i = threadIdx.x;
    double x = kSpecial[i & 15], y = kSpecial[i >> 4];
    out[0 * 256 + i] = x / y;
    out[1 * 256 + i] = sqrt(x);
    out[2 * 256 + i] = 1.0 / x;
    out[3 * 256 + i] = __dmul_rn(x, y);
    out[4 * 256 + i] = __dadd_rn(x, y);
    out[5 * 256 + i] = __fma_rn(x, y, 1.0);
    flags[i] = (x < y) | ((x == y) << 1) | ((x != y) << 2) | (isnan(x) << 3) | (isinf(y) << 4) |
               (signbit(x) ? 32 : 0) | (isfinite(x / y) << 6);
}
