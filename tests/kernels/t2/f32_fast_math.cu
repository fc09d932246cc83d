// Plain f32 code compiled with -use_fast_math: division becomes div.full/approx, sqrtf
// sqrt.approx, the transcendental functions their MUFU intrinsics, everything flushes
// subnormals to zero (.ftz).
extern "C" __global__ void f32_fast_math(const float* a, const float* b, const float* c,
                                         float* rel, float* abs_, float* exact, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    float ax = fabsf(x);
    rel[0 * n + i] = x / y;
    rel[1 * n + i] = sqrtf(ax);
    rel[2 * n + i] = 1.0f / y;
    rel[3 * n + i] = expf(x);
    rel[4 * n + i] = exp2f(y);
    rel[5 * n + i] = 1.0f / sqrtf(ax);
    rel[6 * n + i] = powf(ax + 0.5f, y);
    abs_[0 * n + i] = logf(ax);
    abs_[1 * n + i] = log2f(ax);
    abs_[2 * n + i] = sinf(x);
    abs_[3 * n + i] = cosf(y);
    abs_[4 * n + i] = tanf(x * 0.5f);
    exact[0 * n + i] = x + y;
    exact[1 * n + i] = x * z;
    exact[2 * n + i] = __fmaf_rn(x, y, z);
    exact[3 * n + i] = fmaxf(x, z) - fminf(y, z);
    exact[4 * n + i] = (x * 1e-30f) * 1e-10f;     // subnormal product: flushed to (signed) zero
}
