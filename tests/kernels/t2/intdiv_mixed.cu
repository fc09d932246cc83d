// Integer division in context: quotient and remainder of the same operands used together, 8- and
// 16-bit operands (promoted to int), signed division and remainder by powers of two on negative
// values, decimal digit extraction (a /10 %10 loop with a data-dependent trip count), Euclid's gcd
// (a % loop), a 64-bit modular multiply-accumulate by a runtime modulus, and "ceil division".

extern "C" __global__ void div_in_context(const int* a, const int* b, const unsigned* u,
                                          const short* h, const signed char* c, int* out,
                                          unsigned long long* out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    int y = b[i] >> (b[i] & 15);
    if (y == 0 || (x == -0x7fffffff - 1 && y == -1))
        y = 3;
    int* o = out + 16 * i;
    int q = x / y, r = x % y;
    o[0] = q;
    o[1] = r;
    o[2] = q * y + r - x;  // always 0
    short hs = h[i], hd = h[n + i];
    if (hd == 0)
        hd = 1;
    o[3] = hs / hd;
    o[4] = hs % hd;
    signed char cs = c[i], cd = (signed char)(c[n + i] | 1);
    o[5] = cs / cd;
    o[6] = (unsigned char)cs % (unsigned char)cd;
    o[7] = x / 8;
    o[8] = x % 8;
    o[9] = x / -16;
    o[10] = x % -16;
    // Decimal digits of |x| (as unsigned): count and digit sum.
    unsigned v = x < 0 ? 0u - (unsigned)x : (unsigned)x;
    int digits = 0, dsum = 0;
    do {
        dsum += (int)(v % 10u);
        v /= 10u;
        ++digits;
    } while (v != 0u);
    o[11] = digits;
    o[12] = dsum;
    // Euclid's gcd on unsigned values.
    unsigned g0 = u[i] | 1u, g1 = u[n + i] >> (u[n + i] & 15u);
    while (g1 != 0u) {
        unsigned t = g0 % g1;
        g0 = g1;
        g1 = t;
    }
    o[13] = (int)g0;
    // Ceil division of a non-negative value by a positive one.
    unsigned num = u[i] >> 1, den = (u[n + i] & 0xffffu) + 1u;
    o[14] = (int)((num + den - 1u) / den);
    o[15] = (int)(num / den * den == num);
    // (sum of u[i] * u[n+i] mod m) over a few terms, 64-bit arithmetic, runtime modulus.
    unsigned long long m = (unsigned long long)(u[(i + 1) % n] | 0x80000000u);
    unsigned long long acc = 0;
    for (int k = 0; k < 4; ++k) {
        unsigned long long p = (unsigned long long)u[(i + k) % n] * u[n + (i + 2 * k) % n];
        acc = (acc + p % m) % m;
    }
    out64[i] = acc;
}
