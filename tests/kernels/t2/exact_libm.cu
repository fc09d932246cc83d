// The libm functions CUDA computes exactly (0 ulp), for f32 and f64: fmod, remainder, remquo,
// ldexp, frexp, modf, nextafter, copysign, trunc/round/rint/floor/ceil, fdim, fmin/fmax, ilogb,
// logb, scalbn.
extern "C" __global__ void exact_libm_f32(const float* a, const float* b, const int* ks,
                                          float* out, int* oi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i] * 10.0f, y = b[i];
    int k = ks[i] % 12;             // -11 .. 11
    int e = 0, q = 0;
    float ip = 0.0f;
    out[0 * n + i] = fmodf(x, y);
    out[1 * n + i] = remainderf(x, y);
    out[2 * n + i] = ldexpf(y, k);
    out[3 * n + i] = frexpf(x, &e);
    out[4 * n + i] = modff(x, &ip);
    out[5 * n + i] = ip;
    out[6 * n + i] = nextafterf(x, y);
    out[7 * n + i] = copysignf(x, y);
    out[8 * n + i] = truncf(x);
    out[9 * n + i] = roundf(x);
    out[10 * n + i] = rintf(x);
    out[11 * n + i] = floorf(x);
    out[12 * n + i] = ceilf(x);
    out[13 * n + i] = fdimf(x, y);
    out[14 * n + i] = fminf(x, y);
    out[15 * n + i] = fmaxf(x, y);
    out[16 * n + i] = logbf(x);
    out[17 * n + i] = scalbnf(x, -k);
    out[18 * n + i] = remquof(x, y, &q);
    oi[0 * n + i] = e;
    oi[1 * n + i] = ilogbf(y);
    oi[2 * n + i] = q & 7;          // only the low 3 bits of the quotient are specified
    oi[3 * n + i] = lrintf(x);
    oi[4 * n + i] = (int)lroundf(x);
}

extern "C" __global__ void exact_libm_f64(const double* a, const double* b, const int* ks,
                                          double* out, int* oi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i] * 10.0, y = b[i];
    int k = ks[i] % 12;
    int e = 0, q = 0;
    double ip = 0.0;
    out[0 * n + i] = fmod(x, y);
    out[1 * n + i] = remainder(x, y);
    out[2 * n + i] = ldexp(y, k);
    out[3 * n + i] = frexp(x, &e);
    out[4 * n + i] = modf(x, &ip);
    out[5 * n + i] = ip;
    out[6 * n + i] = nextafter(x, y);
    out[7 * n + i] = copysign(x, y);
    out[8 * n + i] = trunc(x);
    out[9 * n + i] = round(x);
    out[10 * n + i] = rint(x);
    out[11 * n + i] = floor(x);
    out[12 * n + i] = ceil(x);
    out[13 * n + i] = fdim(x, y);
    out[14 * n + i] = fmin(x, y);
    out[15 * n + i] = fmax(x, y);
    out[16 * n + i] = logb(x);
    out[17 * n + i] = scalbn(x, -k);
    out[18 * n + i] = remquo(x, y, &q);
    oi[0 * n + i] = e;
    oi[1 * n + i] = ilogb(y);
    oi[2 * n + i] = q & 7;
    oi[3 * n + i] = (int)llrint(x);
    oi[4 * n + i] = (int)llround(x);
}
