// Integer division written directly in PTX (inline asm): div and rem in .s16/.u16 (which nvcc never
// emits itself), .s32/.u32 and .s64/.u64, on random operands of random magnitudes. Zero divisors
// become 1 and the MIN / -1 pairs are avoided before the asm runs: PTX leaves division by zero
// machine-specific.

template <typename T>
__device__ __forceinline__ T shrink(T v, unsigned s)
{
    return v >> s;
}

extern "C" __global__ void ptx_div(const int* a32, const int* b32, const long long* a64,
                                   const long long* b64, int* out32, long long* out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a32[i], y = shrink(b32[i], (unsigned)b32[i] & 31u);
    if (y == 0 || (x == -0x7fffffff - 1 && y == -1))
        y = 7;
    short hx = (short)x, hy = (short)(y >> 4);
    if (hy == 0 || (hx == -32768 && hy == -1))
        hy = -5;
    unsigned short ux16 = (unsigned short)x, uy16 = (unsigned short)(hy | 1);
    long long X = a64[i], Y = shrink(b64[i], (unsigned)b64[i] & 63u);
    if (Y == 0 || (X == -0x7fffffffffffffffll - 1 && Y == -1))
        Y = 11;
    int r0, r1;
    unsigned r2, r3;
    short h0, h1;
    unsigned short h2, h3;
    long long l0, l1;
    unsigned long long l2, l3;
    asm("div.s32 %0, %1, %2;" : "=r"(r0) : "r"(x), "r"(y));
    asm("rem.s32 %0, %1, %2;" : "=r"(r1) : "r"(x), "r"(y));
    asm("div.u32 %0, %1, %2;" : "=r"(r2) : "r"((unsigned)x), "r"((unsigned)y));
    asm("rem.u32 %0, %1, %2;" : "=r"(r3) : "r"((unsigned)x), "r"((unsigned)y));
    asm("div.s16 %0, %1, %2;" : "=h"(h0) : "h"(hx), "h"(hy));
    asm("rem.s16 %0, %1, %2;" : "=h"(h1) : "h"(hx), "h"(hy));
    asm("div.u16 %0, %1, %2;" : "=h"(h2) : "h"(ux16), "h"(uy16));
    asm("rem.u16 %0, %1, %2;" : "=h"(h3) : "h"(ux16), "h"(uy16));
    asm("div.s64 %0, %1, %2;" : "=l"(l0) : "l"(X), "l"(Y));
    asm("rem.s64 %0, %1, %2;" : "=l"(l1) : "l"(X), "l"(Y));
    asm("div.u64 %0, %1, %2;" : "=l"(l2) : "l"((unsigned long long)X), "l"((unsigned long long)Y));
    asm("rem.u64 %0, %1, %2;" : "=l"(l3) : "l"((unsigned long long)X), "l"((unsigned long long)Y));
    int* o = out32 + 8 * i;
    o[0] = r0;
    o[1] = r1;
    o[2] = (int)r2;
    o[3] = (int)r3;
    o[4] = h0;
    o[5] = h1;
    o[6] = h2;
    o[7] = h3;
    long long* p = out64 + 4 * i;
    p[0] = l0;
    p[1] = l1;
    p[2] = (long long)l2;
    p[3] = (long long)l3;
}
