// The f64 libdevice math functions: polynomial kernels, range reduction (including large sin/cos
// arguments), table-free exp/log, pow and atan2.
extern "C" __global__ void f64_math(const double* a, const double* b, double* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i];
    double ax = fabs(x);
    double big = x * 1000.0;
    int k = 0;
    out[0 * n + i] = exp(x);
    out[1 * n + i] = log(ax);
    out[2 * n + i] = sin(x);
    out[3 * n + i] = cos(x);
    out[4 * n + i] = sin(big);
    out[5 * n + i] = tan(x);
    out[6 * n + i] = atan2(x, y);
    out[7 * n + i] = pow(ax, y);
    out[8 * n + i] = cbrt(x);
    out[9 * n + i] = log1p(ax);
    out[10 * n + i] = expm1(x);
    out[11 * n + i] = tanh(x);
    out[12 * n + i] = asin(x * 0.25);
    out[13 * n + i] = acos(x * 0.25);
    out[14 * n + i] = exp2(y);
    out[15 * n + i] = log10(ax);
    out[16 * n + i] = hypot(x, y);
    out[17 * n + i] = erf(x);
    out[18 * n + i] = cosh(x);
    out[19 * n + i] = ldexp(frexp(x, &k), k + 3);   // exact
    out[20 * n + i] = log2(ax);
}
