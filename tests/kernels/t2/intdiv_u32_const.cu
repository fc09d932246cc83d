// Unsigned 32-bit division and remainder by compile-time constants (powers of two, small odd and
// even, large, all-ones) on random dividends and on edge values (0, 1, max, ...), plus dividends
// next to a multiple of each divisor (x / d * d - 1, + 0, + 1), where a wrong multiply-high
// magic number would show.

#define DIVISORS(X)                                          \
    X(0, (1u))                                               \
    X(1, (2u))                                               \
    X(2, (3u))                                               \
    X(3, (5u))                                               \
    X(4, (6u))                                               \
    X(5, (7u))                                               \
    X(6, (10u))                                              \
    X(7, (16u))                                              \
    X(8, (25u))                                              \
    X(9, (100u))                                             \
    X(10, (641u))                                            \
    X(11, (1000u))                                           \
    X(12, (12345679u))                                       \
    X(13, (65535u))                                          \
    X(14, (65536u))                                          \
    X(15, (0x7fffffffu))                                     \
    X(16, (0x80000000u))                                     \
    X(17, (0x80000001u))                                     \
    X(18, (0xfffffffeu))                                     \
    X(19, (0xffffffffu))
#define NDIV 20
#define NSPECIAL 12

__constant__ unsigned kSpecial[NSPECIAL] = {
    (0u), (1u), (2u), (3u), (6u), (7u), (999999999u), (0x7fffffffu), (0x80000000u),
    (0x80000001u), (0xfffffffeu), (0xffffffffu)};

// out holds, for divisor k: [2k] quotients and [2k+1] remainders of x, then (rows 2*NDIV + 2k and
// 2*NDIV + 2k + 1) those of the near-multiple y.
extern "C" __global__ void u32_div_const(const unsigned* a,
                                         unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = i < NSPECIAL ? kSpecial[i] : a[i];
    unsigned* o = out + i;
    using U = unsigned;
#define X(k, d)                                              \
    {                                                        \
        o[(2 * (k)) * n] = x / (d);                          \
        o[(2 * (k) + 1) * n] = x % (d);                      \
        unsigned y = x / (d) * (d) + (unsigned)(i % 3) - 1u; \
        o[(2 * NDIV + 2 * (k)) * n] = y / (d);               \
        o[(2 * NDIV + 2 * (k) + 1) * n] = y % (d);           \
    }
    DIVISORS(X)
#undef X
}
