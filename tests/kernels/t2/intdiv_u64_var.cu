// Unsigned 64-bit division and remainder by runtime divisors: per-thread divisors from a table
// of edge values (1ull, 2ull, 3ull, 10ull, ..., 0xffffffffffffffffull) or of random magnitude (a
// random word shifted right by a random amount), per-thread dividends random or extreme, and a
// block-uniform divisor passed as a kernel parameter (three launches). Division by zero is
// avoided (a zero divisor becomes 1).

__constant__ unsigned long long kDiv[10] = {
    (1ull), (2ull), (3ull), (10ull), (0xffffffffull), (0x100000000ull), (0x100000001ull),
    (0x8000000000000000ull), (0xfffffffffffffffeull), (0xffffffffffffffffull)};
__constant__ unsigned long long kNum[6] = {
    (0ull), (1ull), (0xffffffffull), (0x8000000000000000ull), (0xfffffffffffffffeull),
    (0xffffffffffffffffull)};

extern "C" __global__ void u64_div_var(const unsigned long long* a, const unsigned long long* b,
                                       unsigned long long* out, unsigned long long ud, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // Bit 2 of i picks an extreme dividend, bit 1 an edge divisor: all four mixes occur.
    unsigned long long x = (i & 4) ? kNum[(i >> 3) % 6] : a[i];
    unsigned long long r = b[i];
    unsigned long long d = (unsigned long long)(r >> (r & 63u));
    if (i & 2)
        d = kDiv[((i >> 3) + (i & 1) * 5) % 10];
    if (d == 0)
        d = 1;
    unsigned long long* o = out + 5 * i;
    o[0] = x / d;
    o[1] = x % d;
    o[2] = x / ud;
    o[3] = x % ud;
    o[4] = d;
}
