// Unsigned 32-bit division and remainder by runtime divisors: per-thread divisors from a table
// of edge values (1u, 2u, 3u, 7u, ..., 0xffffffffu) or of random magnitude (a random word
// shifted right by a random amount), per-thread dividends random or extreme, and a block-uniform
// divisor passed as a kernel parameter (three launches). Division by zero is avoided (a zero
// divisor becomes 1).

__constant__ unsigned kDiv[10] = {
    (1u), (2u), (3u), (7u), (10u), (65537u), (0x80000000u), (0x80000001u), (0xfffffffeu),
    (0xffffffffu)};
__constant__ unsigned kNum[6] = {
    (0u), (1u), (0x7fffffffu), (0x80000000u), (0xfffffffeu), (0xffffffffu)};

extern "C" __global__ void u32_div_var(const unsigned* a, const unsigned* b, unsigned* out,
                                       unsigned ud, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // Bit 2 of i picks an extreme dividend, bit 1 an edge divisor: all four mixes occur.
    unsigned x = (i & 4) ? kNum[(i >> 3) % 6] : a[i];
    unsigned r = b[i];
    unsigned d = (unsigned)(r >> (r & 31u));
    if (i & 2)
        d = kDiv[((i >> 3) + (i & 1) * 5) % 10];
    if (d == 0)
        d = 1;
    unsigned* o = out + 5 * i;
    o[0] = x / d;
    o[1] = x % d;
    o[2] = x / ud;
    o[3] = x % ud;
    o[4] = d;
}
