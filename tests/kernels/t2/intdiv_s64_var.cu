// Signed 64-bit division and remainder by runtime divisors: per-thread divisors from a table of
// edge values (1ll, -1ll, 3ll, -10ll, ..., 1000000007ll) or of random magnitude (a random word
// shifted right by a random amount), per-thread dividends random or extreme, and a block-uniform
// divisor passed as a kernel parameter (three launches). Division by zero is avoided (a zero
// divisor becomes 1). C++ leaves MIN / -1 undefined: that case gets the wrapped value (MIN,
// remainder 0) through a select.

__constant__ long long kDiv[10] = {
    (1ll), (-1ll), (3ll), (-10ll), (0xffffffffll), (-0x100000000ll), (0x7fffffffffffffffll),
    (-0x7fffffffffffffffll), (-0x7fffffffffffffffll - 1), (1000000007ll)};
__constant__ long long kNum[6] = {
    (0ll), (1ll), (-1ll), (0x7fffffffffffffffll), (-0x7fffffffffffffffll),
    (-0x7fffffffffffffffll - 1)};

__device__ __forceinline__ long long sdiv(long long x, long long d)
{
    return (d == -1 && x == -0x7fffffffffffffffll - 1) ? x : x / d;
}
__device__ __forceinline__ long long srem(long long x, long long d)
{
    return (d == -1 && x == -0x7fffffffffffffffll - 1) ? 0 : x % d;
}

extern "C" __global__ void s64_div_var(const long long* a, const unsigned long long* b,
                                       long long* out, long long ud, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // Bit 2 of i picks an extreme dividend, bit 1 an edge divisor: all four mixes occur.
    long long x = (i & 4) ? kNum[(i >> 3) % 6] : a[i];
    unsigned long long r = b[i];
    long long d = (long long)((long long)r >> (r & 63u));
    if (i & 2)
        d = kDiv[((i >> 3) + (i & 1) * 5) % 10];
    if (d == 0)
        d = 1;
    long long* o = out + 5 * i;
    o[0] = sdiv(x, d);
    o[1] = srem(x, d);
    o[2] = sdiv(x, ud);
    o[3] = srem(x, ud);
    o[4] = d;
}
