// 64-bit integer arithmetic: add/sub/mul/mad with wrap-around, mul.hi (signed and unsigned), shifts
// by constants (below, at and above 32) and by variables, rotates, bitwise logic, min/max and abs,
// and mixed 32/64-bit expressions.

extern "C" __global__ void i64_arith(const long long* a, const long long* b, const long long* c,
                                     long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long ua = a[i], ub = b[i], uc = c[i];
    long long x = a[i], y = b[i];
    long long* o = out + i;
    o[0 * n] = (long long)(ua + ub);
    o[1 * n] = (long long)(ua - ub);
    o[2 * n] = (long long)(ua * ub);
    o[3 * n] = (long long)(ua * ub + uc);
    o[4 * n] = (long long)(uc - ua * ub);
    o[5 * n] = __mul64hi(x, y);
    o[6 * n] = (long long)__umul64hi(ua, ub);
    o[7 * n] = (long long)(ua * 0x9E3779B97F4A7C15ull + 12345ull);
    o[8 * n] = (long long)(0ull - ua);
    o[9 * n] = (long long)(ua * 3ull - (ub << 1));
    o[10 * n] = (long long)(ua + (unsigned long long)(long long)(int)ub);
    o[11 * n] = (long long)(ua * (unsigned)i);
}

extern "C" __global__ void i64_shift_logic(const unsigned long long* a,
                                           const unsigned long long* b, unsigned long long* out,
                                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i], y = b[i];
    long long sx = (long long)x;
    unsigned s = (unsigned)y & 63u;
    unsigned long long* o = out + i;
    o[0 * n] = x << 13;
    o[1 * n] = x >> 29;
    o[2 * n] = (unsigned long long)(sx >> 40);
    o[3 * n] = x << 32;
    o[4 * n] = x >> 32;
    o[5 * n] = (unsigned long long)(sx >> 32);
    o[6 * n] = x << s;
    o[7 * n] = x >> s;
    o[8 * n] = (unsigned long long)(sx >> s);
    o[9 * n] = (x << s) | (x >> ((64u - s) & 63u));
    o[10 * n] = (unsigned long long)(sx >> 63);
    o[11 * n] = x & y;
    o[12 * n] = x | y;
    o[13 * n] = x ^ y;
    o[14 * n] = ~x & y;
    o[15 * n] = (x >> 60) | (x << 4);
}

extern "C" __global__ void i64_minmax_abs(const long long* a, const long long* b, long long* out,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i], y = b[i];
    unsigned long long ux = x, uy = y;
    long long* o = out + i;
    o[0 * n] = min(x, y);
    o[1 * n] = max(x, y);
    o[2 * n] = (long long)min(ux, uy);
    o[3 * n] = (long long)max(ux, uy);
    o[4 * n] = llabs(x);
    o[5 * n] = x < y ? 1 : (x == y ? 0 : -1);
    o[6 * n] = (long long)(ux > uy ? ux - uy : uy - ux);
    o[7 * n] = (x >> 3) < (y >> 3) ? x : y;
}
