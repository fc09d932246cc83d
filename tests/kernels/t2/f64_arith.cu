// f64 arithmetic with every mul/add pinned by an intrinsic (no contraction): add, sub, mul, fma,
// min/max, abs/neg/copysign, comparisons and a conversion to f32.
extern "C" __global__ void f64_arith(const double* a, const double* b, const double* c,
                                     double* out, float* outf, int* cmp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __dadd_rn(x, y);
    out[1 * n + i] = __dsub_rn(x, y);
    out[2 * n + i] = __dmul_rn(x, y);
    out[3 * n + i] = __fma_rn(x, y, z);
    out[4 * n + i] = __fma_rn(-x, y, z);            // fma with a negated product
    out[5 * n + i] = fmax(x, y);
    out[6 * n + i] = fmin(x, z);
    out[7 * n + i] = copysign(fabs(y), x);
    out[8 * n + i] = __dadd_rn(__dmul_rn(x, x), __dmul_rn(y, y));  // two roundings, then one
    outf[i] = (float)__dmul_rn(x, z);
    cmp[i] = (x < y) | ((x == z) << 1) | ((x >= 0.0) << 2) | ((fabs(z) > 1.5) << 3);
}
