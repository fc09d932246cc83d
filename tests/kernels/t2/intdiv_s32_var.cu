// Signed 32-bit division and remainder by runtime divisors: per-thread divisors from a table of
// edge values (1, -1, 2, -2, ..., -0x7fffffff - 1) or of random magnitude (a random word shifted
// right by a random amount), per-thread dividends random or extreme, and a block-uniform divisor
// passed as a kernel parameter (three launches). Division by zero is avoided (a zero divisor
// becomes 1). C++ leaves MIN / -1 undefined: that case gets the wrapped value (MIN, remainder 0)
// through a select.

__constant__ int kDiv[11] = {
    (1), (-1), (2), (-2), (3), (-7), (1000), (-65536), (0x7fffffff), (-0x7fffffff),
    (-0x7fffffff - 1)};
__constant__ int kNum[6] = {
    (0), (1), (-1), (0x7fffffff), (-0x7fffffff), (-0x7fffffff - 1)};

__device__ __forceinline__ int sdiv(int x, int d)
{
    return (d == -1 && x == -0x7fffffff - 1) ? x : x / d;
}
__device__ __forceinline__ int srem(int x, int d)
{
    return (d == -1 && x == -0x7fffffff - 1) ? 0 : x % d;
}

extern "C" __global__ void s32_div_var(const int* a, const unsigned* b, int* out, int ud, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // Bit 2 of i picks an extreme dividend, bit 1 an edge divisor: all four mixes occur.
    int x = (i & 4) ? kNum[(i >> 3) % 6] : a[i];
    unsigned r = b[i];
    int d = (int)((int)r >> (r & 31u));
    if (i & 2)
        d = kDiv[((i >> 3) + (i & 1) * 5) % 11];
    if (d == 0)
        d = 1;
    int* o = out + 5 * i;
    o[0] = sdiv(x, d);
    o[1] = srem(x, d);
    o[2] = sdiv(x, ud);
    o[3] = srem(x, ud);
    o[4] = d;
}
