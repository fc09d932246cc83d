// Signed 32-bit division and remainder by compile-time constants (powers of two, small odd and
// even, large, negative, MIN) on random dividends and on edge values (MIN, MAX, 0, 1, max, ...),
// plus dividends next to a multiple of each divisor (x / d * d - 1, + 0, + 1), where a wrong
// multiply-high magic number would show.
// C++ leaves MIN / -1 undefined: that one case is given the wrapped PTX value (MIN, remainder 0)
// through a select, so no undefined division is ever evaluated.

#define DIVISORS(X)                                                \
    X(0, (2))                                                      \
    X(1, (4))                                                      \
    X(2, (16))                                                     \
    X(3, (1 << 30))                                                \
    X(4, (3))                                                      \
    X(5, (5))                                                      \
    X(6, (7))                                                      \
    X(7, (10))                                                     \
    X(8, (100))                                                    \
    X(9, (1000))                                                   \
    X(10, (65536))                                                 \
    X(11, (0x7fffffff))                                            \
    X(12, (-1))                                                    \
    X(13, (-2))                                                    \
    X(14, (-3))                                                    \
    X(15, (-7))                                                    \
    X(16, (-16))                                                   \
    X(17, (-1000))                                                 \
    X(18, (-0x7fffffff - 1))
#define NDIV 19
#define NSPECIAL 16

__constant__ int kSpecial[NSPECIAL] = {
    (0), (1), (-1), (2), (-2), (7), (-7), (1000), (-1000), (0x7fffffff), (-0x7fffffff),
    (-0x7fffffff - 1), (0x40000000), (-0x40000000), (65535), (-65537)};

__device__ __forceinline__ int sdiv(int x, int d)
{
    return (d == -1 && x == -0x7fffffff - 1) ? x : x / d;
}
__device__ __forceinline__ int srem(int x, int d)
{
    return (d == -1 && x == -0x7fffffff - 1) ? 0 : x % d;
}

// out holds, for divisor k: [2k] quotients and [2k+1] remainders of x, then (rows 2*NDIV + 2k and
// 2*NDIV + 2k + 1) those of the near-multiple y.
extern "C" __global__ void s32_div_const(const int* a,
                                         int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = i < NSPECIAL ? kSpecial[i] : a[i];
    int* o = out + i;
    using U = unsigned;
#define X(k, d)                                                    \
    {                                                              \
        o[(2 * (k)) * n] = sdiv(x, (d));                           \
        o[(2 * (k) + 1) * n] = srem(x, (d));                       \
        int y = (int)((U)sdiv(x, (d)) * (U)(d) + (U)(i % 3) - 1u); \
        o[(2 * NDIV + 2 * (k)) * n] = sdiv(y, (d));                \
        o[(2 * NDIV + 2 * (k) + 1) * n] = srem(y, (d));            \
    }
    DIVISORS(X)
#undef X
}
