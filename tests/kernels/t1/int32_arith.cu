// 32-bit integer arithmetic: add/sub/mul/mad with wrap-around (done in unsigned, so there is no
// signed overflow), mul.hi signed and unsigned, shifts by constants and by variables, bitwise logic,
// rotates, min/max (signed and unsigned), abs, clamp and branch-free selects.

extern "C" __global__ void i32_arith(const int* a, const int* b, const int* c, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned ua = a[i], ub = b[i], uc = c[i];
    int x = a[i], y = b[i];
    out[0 * n + i] = (int)(ua + ub);
    out[1 * n + i] = (int)(ua - ub);
    out[2 * n + i] = (int)(ua * ub);
    out[3 * n + i] = (int)(ua * ub + uc);
    out[4 * n + i] = (int)(uc - ua * ub);
    out[5 * n + i] = __mulhi(x, y);
    out[6 * n + i] = (int)__umulhi(ua, ub);
    out[7 * n + i] = (int)(ua * 12345u + 678u);
    out[8 * n + i] = (int)(0u - ua);
    out[9 * n + i] = (int)(ua * 9u - ub * 7u + 3u);
}

extern "C" __global__ void i32_shift_logic(const unsigned* a, const unsigned* b, unsigned* out,
                                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i];
    int sx = (int)x;
    unsigned s = y & 31u;
    unsigned* o = out + i;
    o[0 * n] = x << 5;
    o[1 * n] = x >> 7;
    o[2 * n] = (unsigned)(sx >> 9);
    o[3 * n] = x << s;
    o[4 * n] = x >> s;
    o[5 * n] = (unsigned)(sx >> s);
    o[6 * n] = (x << s) | (x >> ((32u - s) & 31u));
    o[7 * n] = x & y;
    o[8 * n] = x | y;
    o[9 * n] = x ^ y;
    o[10 * n] = ~x;
    o[11 * n] = x & ~y;
    o[12 * n] = (x ^ y) | (x & 0xF0F0F0F0u);
    o[13 * n] = (unsigned)(sx >> 31);
    o[14 * n] = ((x & y) | (~x & (y >> 3))) ^ (x << 1);
    o[15 * n] = (x >> 16) | (x << 16);
}

extern "C" __global__ void i32_minmax_abs(const int* a, const int* b, int* out, int lo, int hi,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    unsigned ux = x, uy = y;
    int* o = out + i;
    o[0 * n] = min(x, y);
    o[1 * n] = max(x, y);
    o[2 * n] = (int)umin(ux, uy);
    o[3 * n] = (int)umax(ux, uy);
    o[4 * n] = abs(x);
    o[5 * n] = min(max(x, lo), hi);
    o[6 * n] = x < y ? y - (y >> 1) : x >> 2;
    o[7 * n] = (x >= 0) == (y >= 0) ? 1 : -1;
    o[8 * n] = max(abs(x >> 1), abs(y >> 1));
    o[9 * n] = (int)((ux > uy) ? ux - uy : uy - ux);
}
