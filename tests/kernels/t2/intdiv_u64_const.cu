// Unsigned 64-bit division and remainder by compile-time constants (powers of two, small odd and
// even, large, all-ones) on random dividends and on edge values (0, 1, max, ...), plus dividends
// next to a multiple of each divisor (x / d * d - 1, + 0, + 1), where a wrong multiply-high
// magic number would show.

#define DIVISORS(X)                                                              \
    X(0, (1ull))                                                                 \
    X(1, (2ull))                                                                 \
    X(2, (3ull))                                                                 \
    X(3, (7ull))                                                                 \
    X(4, (10ull))                                                                \
    X(5, (64ull))                                                                \
    X(6, (1000ull))                                                              \
    X(7, (1000000007ull))                                                        \
    X(8, (0xffffffffull))                                                        \
    X(9, (0x100000000ull))                                                       \
    X(10, (0x100000001ull))                                                      \
    X(11, (1000000000000000000ull))                                              \
    X(12, (0x7fffffffffffffffull))                                               \
    X(13, (0x8000000000000000ull))                                               \
    X(14, (0xfffffffffffffffeull))                                               \
    X(15, (0xffffffffffffffffull))
#define NDIV 16
#define NSPECIAL 12

__constant__ unsigned long long kSpecial[NSPECIAL] = {
    (0ull), (1ull), (2ull), (3ull), (0xffffffffull), (0x100000000ull),
    (0x7fffffffffffffffull), (0x8000000000000000ull), (0x8000000000000001ull),
    (0xfffffffffffffffeull), (0xffffffffffffffffull), (999999999999999999ull)};

// out holds, for divisor k: [2k] quotients and [2k+1] remainders of x, then (rows 2*NDIV + 2k and
// 2*NDIV + 2k + 1) those of the near-multiple y.
extern "C" __global__ void u64_div_const(const unsigned long long* a,
                                         unsigned long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = i < NSPECIAL ? kSpecial[i] : a[i];
    unsigned long long* o = out + i;
    using U = unsigned long long;
#define X(k, d)                                                                  \
    {                                                                            \
        o[(2 * (k)) * n] = x / (d);                                              \
        o[(2 * (k) + 1) * n] = x % (d);                                          \
        unsigned long long y = x / (d) * (d) + (unsigned long long)(i % 3) - 1u; \
        o[(2 * NDIV + 2 * (k)) * n] = y / (d);                                   \
        o[(2 * NDIV + 2 * (k) + 1) * n] = y % (d);                               \
    }
    DIVISORS(X)
#undef X
}
