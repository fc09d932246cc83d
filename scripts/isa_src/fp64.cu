// f64 arithmetic, comparisons, conversions.
extern "C" __global__ void f64_ops(double *o, const double *a, const double *b, const float *f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i];
    double r = fma(x, y, 1.0) + __dadd_rz(x, y) + __dmul_ru(x, y) + __dmul_rd(x, 3.0) + __fma_rz(x, y, x);
    r += x / y + sqrt(y) + rsqrt(x) + fabs(x) + fmax(x, y) + fmin(x, 2.0);
    r += (double)f[i] + (double)i + (double)(unsigned)n + (double)(long long)x;
    r += floor(x) + ceil(y) + trunc(x) + rint(y);
    if (x > y || x == 0.5 || isnan(y)) r = -r;
    o[i] = r;
    ((float *)o)[i] = (float)x + __double2float_rz(y);
    ((int *)o)[i + n] = (int)x + __double2int_rz(y) + (int)(unsigned)y + (int)(long long)y + __double_as_longlong(x) ;
    ((long long *)o)[i + 2*n] = __double2ll_rd(x) + (long long)__double2ull_ru(y);
}
