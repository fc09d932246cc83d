// The precise f32 math library (no fast math): polynomial kernels with FMA chains, Payne-Hanek
// range reduction for large sin/cos arguments, powf's extended-precision log.
extern "C" __global__ void f32_libm(const float* a, const float* b, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    float ax = fabsf(x);
    out[0 * n + i] = expf(x);
    out[1 * n + i] = logf(ax);
    out[2 * n + i] = sinf(x);
    out[3 * n + i] = cosf(x);
    out[4 * n + i] = sinf(x * 10000.0f);
    out[5 * n + i] = cosf(y * 1e6f);
    out[6 * n + i] = tanf(x);
    out[7 * n + i] = atan2f(x, y);
    out[8 * n + i] = powf(ax, y);
    out[9 * n + i] = erff(x);
    out[10 * n + i] = tanhf(y);
    out[11 * n + i] = cbrtf(x);
    out[12 * n + i] = log1pf(ax);
    out[13 * n + i] = expm1f(y);
    out[14 * n + i] = asinf(x * 0.25f);
    out[15 * n + i] = acosf(y * 0.25f);
    out[16 * n + i] = atanf(x);
    out[17 * n + i] = sinhf(y);
    out[18 * n + i] = coshf(x);
    out[19 * n + i] = exp2f(y);
    out[20 * n + i] = log2f(ax);
    out[21 * n + i] = log10f(ax);
    out[22 * n + i] = hypotf(x, y);
    out[23 * n + i] = exp10f(y);
}
