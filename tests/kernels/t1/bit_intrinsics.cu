// Bit-counting and bit-permuting intrinsics: __popc/__popcll, __clz/__clzll, __ffs/__ffsll,
// __brev/__brevll and __byte_perm with constant and variable selectors. Operands shifted right by
// the thread index cover zero and small values as well as full-width ones.

extern "C" __global__ void bit_count(const unsigned* a, const unsigned long long* b, int* out,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i];
    unsigned x2 = x >> (i & 31);
    unsigned long long y = b[i];
    unsigned long long y2 = y >> (i & 63);
    int* o = out + i;
    o[0 * n] = __popc(x);
    o[1 * n] = __clz(x);
    o[2 * n] = __ffs(x);
    o[3 * n] = __popc(x2);
    o[4 * n] = __clz(x2);
    o[5 * n] = __ffs(x2);
    o[6 * n] = __popcll(y);
    o[7 * n] = __clzll(y);
    o[8 * n] = __ffsll(y);
    o[9 * n] = __popcll(y2);
    o[10 * n] = __clzll(y2);
    o[11 * n] = __ffsll(y2);
    o[12 * n] = 31 - __clz(x2 | 1u);
    o[13 * n] = __popc(x & (x2 ^ 0x5555AAAAu)) + __clz(~x2);
}

extern "C" __global__ void bit_permute(const unsigned* a, const unsigned* b,
                                       const unsigned long long* c, unsigned* out,
                                       unsigned long long* out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i];
    unsigned* o = out + i;
    o[0 * n] = __brev(x);
    o[1 * n] = __byte_perm(x, y, 0x3210);
    o[2 * n] = __byte_perm(x, 0, 0x0123);
    o[3 * n] = __byte_perm(x, y, 0x5410);
    o[4 * n] = __byte_perm(x, y, 0x7654);
    o[5 * n] = __byte_perm(x, y, 0x1111);
    o[6 * n] = __byte_perm(x, y, 0x4321);
    o[7 * n] = __byte_perm(x, y, 0x7531);
    o[8 * n] = __byte_perm(x, y, y);
    o[9 * n] = __byte_perm(x, y, x >> 16);
    unsigned long long z = c[i];
    out64[2 * i] = __brevll(z);
    unsigned lo = (unsigned)z, hi = (unsigned)(z >> 32);
    out64[2 * i + 1] = ((unsigned long long)__byte_perm(lo, 0, 0x0123) << 32) |
                       __byte_perm(hi, 0, 0x0123);
}
