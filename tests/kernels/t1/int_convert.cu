// Integer width conversions (sign and zero extension, truncation between 8/16/32/64 bits) and
// in-range conversions between int and float (cvt.rn.f32.s32/u32/s64, cvt.rzi.s32/u32/s64.f32).

extern "C" __global__ void int_widths(const int* a, const long long* b, int* out32,
                                      long long* out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    long long y = b[i];
    int* o = out32 + i;
    o[0 * n] = (signed char)x;
    o[1 * n] = (unsigned char)x;
    o[2 * n] = (short)x;
    o[3 * n] = (unsigned short)x;
    o[4 * n] = (int)y;
    o[5 * n] = (int)(y >> 32);
    o[6 * n] = (signed char)(x >> 8) + (short)(y >> 20);
    o[7 * n] = (int)(unsigned char)(x >> 24) * (int)(signed char)(x >> 16);
    long long* p = out64 + i;
    p[0 * n] = x;
    p[1 * n] = (unsigned)x;
    p[2 * n] = (short)y;
    p[3 * n] = (unsigned short)y;
    p[4 * n] = (signed char)(y >> 40);
    p[5 * n] = (int)y;
    p[6 * n] = (long long)(unsigned long long)(unsigned)(y >> 7);
}

extern "C" __global__ void int_float(const int* a, const long long* b, const float* f,
                                     float* fout, int* iout, long long* lout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    long long y = b[i];
    float v = __fmul_rn(f[i], 1000.0f);
    float* o = fout + i;
    o[0 * n] = (float)x;
    o[1 * n] = (float)(unsigned)x;
    o[2 * n] = (float)y;
    o[3 * n] = (float)(x >> 8);
    o[4 * n] = (float)(short)x;
    int* q = iout + i;
    q[0 * n] = (int)v;
    q[1 * n] = (int)(unsigned)fabsf(v);
    q[2 * n] = (int)__fmul_rn(v, 1000.0f);
    lout[i] = (long long)__fmul_rn(v, 1.0e9f);
}
