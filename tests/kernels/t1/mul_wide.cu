// Widening and narrow multiplies: mul.wide.s32/u32 (32x32 -> 64), mad.wide, 16x16 -> 32
// (mul.wide.s16/u16), __mul24/__umul24 (24-bit operands), and 64-bit products built from halves.

extern "C" __global__ void mul_wide(const int* a, const int* b, const long long* c,
                                    const short* h, const unsigned short* uh, long long* out,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    unsigned ux = x, uy = y;
    long long* o = out + i;
    o[0 * n] = (long long)x * y;
    o[1 * n] = (long long)((unsigned long long)ux * uy);
    o[2 * n] = (long long)((unsigned long long)((long long)x * y) + (unsigned long long)c[i]);
    o[3 * n] = (long long)x * 1000003;
    o[4 * n] = (long long)((unsigned long long)ux * 0xFFFFFFFFull);
    o[5 * n] = (int)h[i] * (int)h[i + n];
    o[6 * n] = (unsigned)uh[i] * (unsigned)uh[i + n];
    o[7 * n] = __mul24(x, y);
    o[8 * n] = __umul24(ux, uy);
    o[9 * n] = (long long)(((unsigned long long)ux << 32) | uy);
    o[10 * n] = ((long long)x * y) >> 16;
    o[11 * n] = (long long)(((unsigned long long)ux * uy) >> 7);
}

// A full 64x64 -> 128-bit unsigned product from 32-bit halves, checked against __umul64hi.
extern "C" __global__ void mul_128(const unsigned long long* a, const unsigned long long* b,
                                   unsigned long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i], y = b[i];
    unsigned long long xl = (unsigned)x, xh = x >> 32, yl = (unsigned)y, yh = y >> 32;
    unsigned long long ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
    unsigned long long mid = (ll >> 32) + (unsigned)lh + (unsigned)hl;
    unsigned long long hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    unsigned long long lo = (mid << 32) | (unsigned)ll;
    out[3 * i + 0] = lo;
    out[3 * i + 1] = hi;
    out[3 * i + 2] = hi ^ __umul64hi(x, y);
}
