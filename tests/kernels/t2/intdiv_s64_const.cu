// Signed 64-bit division and remainder by compile-time constants (powers of two, small odd and
// even, large, negative, MIN) on random dividends and on edge values (MIN, MAX, 0, 1, max, ...),
// plus dividends next to a multiple of each divisor (x / d * d - 1, + 0, + 1), where a wrong
// multiply-high magic number would show.
// C++ leaves MIN / -1 undefined: that one case is given the wrapped PTX value (MIN, remainder 0)
// through a select, so no undefined division is ever evaluated.

#define DIVISORS(X)                                                            \
    X(0, (2ll))                                                                \
    X(1, (8ll))                                                                \
    X(2, (1ll << 40))                                                          \
    X(3, (3ll))                                                                \
    X(4, (10ll))                                                               \
    X(5, (1000ll))                                                             \
    X(6, (1000000007ll))                                                       \
    X(7, (0xffffffffll))                                                       \
    X(8, (0x100000000ll))                                                      \
    X(9, (0x7fffffffffffffffll))                                               \
    X(10, (-1ll))                                                              \
    X(11, (-3ll))                                                              \
    X(12, (-64ll))                                                             \
    X(13, (-1000000000000ll))                                                  \
    X(14, (-0x7fffffffffffffffll - 1))
#define NDIV 15
#define NSPECIAL 12

__constant__ long long kSpecial[NSPECIAL] = {
    (0ll), (1ll), (-1ll), (3ll), (-3ll), (0xffffffffll), (-0x100000000ll),
    (0x7fffffffffffffffll), (-0x7fffffffffffffffll), (-0x7fffffffffffffffll - 1),
    (0x4000000000000000ll), (-0x4000000000000001ll)};

__device__ __forceinline__ long long sdiv(long long x, long long d)
{
    return (d == -1 && x == -0x7fffffffffffffffll - 1) ? x : x / d;
}
__device__ __forceinline__ long long srem(long long x, long long d)
{
    return (d == -1 && x == -0x7fffffffffffffffll - 1) ? 0 : x % d;
}

// out holds, for divisor k: [2k] quotients and [2k+1] remainders of x, then (rows 2*NDIV + 2k and
// 2*NDIV + 2k + 1) those of the near-multiple y.
extern "C" __global__ void s64_div_const(const long long* a,
                                         long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = i < NSPECIAL ? kSpecial[i] : a[i];
    long long* o = out + i;
    using U = unsigned long long;
#define X(k, d)                                                                \
    {                                                                          \
        o[(2 * (k)) * n] = sdiv(x, (d));                                       \
        o[(2 * (k) + 1) * n] = srem(x, (d));                                   \
        long long y = (long long)((U)sdiv(x, (d)) * (U)(d) + (U)(i % 3) - 1u); \
        o[(2 * NDIV + 2 * (k)) * n] = sdiv(y, (d));                            \
        o[(2 * NDIV + 2 * (k) + 1) * n] = srem(y, (d));                        \
    }
    DIVISORS(X)
#undef X
}
