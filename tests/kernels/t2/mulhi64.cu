// 64-bit multiply-high: mul.hi.u64/s64 (__umul64hi, __mul64hi) by constants and by variables,
// mad.hi.u64/s64 and a 128-bit multiply-accumulate through add.cc/addc chains. ptxas builds the
// 64x64 high half from 32-bit IMAD.WIDE/IMAD.HI.X pieces whose carries must all propagate: the
// inputs are every pair of edge values (0, 1, all ones, single-half all ones, sign bits,
// alternating bits) plus random words.
#include <stdint.h>

#define NCONST 8

extern "C" __global__ void mulhi_u64_const(const unsigned long long* a, unsigned long long* out,
                                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i];
    out[0 * n + i] = __umul64hi(x, 0xffffffffffffffffull);
    out[1 * n + i] = __umul64hi(x, 0xaaaaaaaaaaaaaaabull);
    out[2 * n + i] = __umul64hi(x, 0xcccccccccccccccdull);
    out[3 * n + i] = __umul64hi(x, 0x8000000000000001ull);
    out[4 * n + i] = __umul64hi(x, 0x0000000100000001ull);
    out[5 * n + i] = __umul64hi(x, 0xffffffff00000001ull);
    out[6 * n + i] = __umul64hi(x, 0x00000000ffffffffull);
    out[7 * n + i] = __umul64hi(x, 0x123456789abcdef1ull);
}

extern "C" __global__ void mulhi_s64_const(const long long* a, long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i];
    out[0 * n + i] = __mul64hi(x, -1ll);
    out[1 * n + i] = __mul64hi(x, -3ll);
    out[2 * n + i] = __mul64hi(x, 0x5555555555555556ll);
    out[3 * n + i] = __mul64hi(x, (long long)0x8000000000000000ull);
    out[4 * n + i] = __mul64hi(x, 0x7fffffffffffffffll);
    out[5 * n + i] = __mul64hi(x, -0x100000000ll);
    out[6 * n + i] = __mul64hi(x, 7ll);
    out[7 * n + i] = __mul64hi(x, -0x123456789abcdefll);
}

// out[0]: mul.hi.u64 a*b, out[1]: mad.hi.u64 a*b + c, out[2]: mul.lo.u64.
extern "C" __global__ void mulhi_u64_var(const unsigned long long* a, const unsigned long long* b,
                                         const unsigned long long* c, unsigned long long* out,
                                         int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i], y = b[i], z = c[i], m;
    asm("mad.hi.u64 %0, %1, %2, %3;" : "=l"(m) : "l"(x), "l"(y), "l"(z));
    out[0 * n + i] = __umul64hi(x, y);
    out[1 * n + i] = m;
    out[2 * n + i] = x * y;
}

extern "C" __global__ void mulhi_s64_var(const long long* a, const long long* b,
                                         const long long* c, long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i], y = b[i], z = c[i], m;
    asm("mad.hi.s64 %0, %1, %2, %3;" : "=l"(m) : "l"(x), "l"(y), "l"(z));
    out[0 * n + i] = __mul64hi(x, y);
    out[1 * n + i] = m;
}

// sum over j < 4 of a[i] * b[(i + j) % n], modulo 2^128, accumulated with add.cc/addc.
extern "C" __global__ void mul128_acc(const unsigned long long* a, const unsigned long long* b,
                                      unsigned long long* lo, unsigned long long* hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i], sl = 0, sh = 0;
    for (int j = 0; j < 4; ++j) {
        unsigned long long y = b[(i + j) % n];
        unsigned long long pl = x * y, ph = __umul64hi(x, y);
        asm("add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, %3;"
            : "+l"(sl), "+l"(sh)
            : "l"(pl), "l"(ph));
    }
    lo[i] = sl;
    hi[i] = sh;
}
