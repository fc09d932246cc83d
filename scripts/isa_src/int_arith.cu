// Integer arithmetic, comparisons, selects, 64-bit math: IMAD/IADD3/ISETP/LEA/SHF/LOP3/SEL forms.
#include <cstdint>
extern "C" __global__ void int_mix(int *a, const int *b, unsigned *c, long long *d, int n, int k, unsigned u) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = b[i];
    int y = x * k + 7;
    unsigned z = (unsigned)x * u;
    y = (y > 100) ? y - k : y + 3;
    z = (z >= u) ? z >> 3 : z << 5;
    int s = (x < 0) ? -x : x;
    y ^= (x & 0xf0f0) | (k ^ 0x1234);
    long long w = (long long)x * k + d[i];
    w += (long long)i << 20;
    unsigned long long uw = (unsigned long long)z * u;
    uw = uw >> (k & 63);
    if (w > (long long)uw) w -= 17;
    a[i] = y + s + (int)(w >> 7) + (int)(uw >> 33);
    c[i] = z + __umulhi(z, u) + (unsigned)__mulhi(x, k);
    d[i] = w / (k | 1) + (long long)(z % (u | 1));
}
extern "C" __global__ void int_div(int *a, unsigned *b, int n, int k, unsigned u) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = a[i] / k + a[i] % 7 + a[i] / 3;
        b[i] = b[i] / u + b[i] % u + b[i] / 10;
    }
}
extern "C" __global__ void int_cmp(int *out, const int *a, const unsigned *b, const long long *c, int n) {
    int i = threadIdx.x;
    int r = 0;
    if (a[i] == 3 || b[i] != 4u) r |= 1;
    if (a[i] <= n && b[i] < (unsigned)n) r |= 2;
    if (c[i] > 5 || c[i] <= -9) r |= 4;
    if ((unsigned long long)c[i] >= (unsigned long long)n) r |= 8;
    if (a[i] > b[i] ^ (c[i] != 0)) r |= 16;
    r += max(a[i], n) + min(a[i], 3) + (int)max(b[i], 9u) + (int)umin(b[i], (unsigned)n);
    out[i] = r;
}
extern "C" __global__ void bits(unsigned *o, const unsigned *a, const unsigned long long *b, int n) {
    int i = threadIdx.x;
    unsigned x = a[i];
    unsigned long long y = b[i];
    o[i * 8 + 0] = __popc(x) + __popcll(y);
    o[i * 8 + 1] = __clz(x) + __clzll(y);
    o[i * 8 + 2] = __brev(x) ^ (unsigned)__brevll(y);
    o[i * 8 + 3] = __ffs(x) + __ffsll(y);
    o[i * 8 + 4] = __byte_perm(x, n, 0x5410) + __funnelshift_l(x, n, 5) + __funnelshift_r(x, n, n);
    o[i * 8 + 5] = (x >> 7) & 0x3ff;
    unsigned bf;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(bf) : "r"(x), "r"(n), "r"(9));
    unsigned bi;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(bi) : "r"(x), "r"(bf), "r"(3), "r"(n));
    int sb;
    asm("bfe.s32 %0, %1, 4, 12;" : "=r"(sb) : "r"(x));
    o[i * 8 + 6] = bf + bi + sb + __sad(x, bf, 3) + __usad(x, n, bi);
    unsigned m;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(m) : "r"(x), "r"(n));
    o[i * 8 + 7] = m + __vabsdiffu4(x, bf) + __dp4a((int)x, (int)bf, 5);
}
