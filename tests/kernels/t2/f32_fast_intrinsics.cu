// The fast f32 intrinsics without -use_fast_math: __fdividef, __expf, __exp10f, __logf,
// __log2f, __log10f, __sinf, __cosf, __sincosf, __tanf, __powf, rsqrtf (MUFU-based), and the
// exact __saturatef.
extern "C" __global__ void f32_fast_intrinsics(const float* a, const float* b, float* rel,
                                               float* abs_, float* pw, float* exact, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i];
    float ax = fabsf(x);
    float s, c;
    __sincosf(y, &s, &c);
    rel[0 * n + i] = __fdividef(x, y);
    rel[1 * n + i] = __expf(x);
    rel[2 * n + i] = __exp10f(x);
    rel[3 * n + i] = rsqrtf(ax);
    abs_[0 * n + i] = __logf(ax);
    abs_[1 * n + i] = __log2f(ax);
    abs_[2 * n + i] = __log10f(ax);
    abs_[3 * n + i] = __sinf(x);
    abs_[4 * n + i] = __cosf(x);
    abs_[5 * n + i] = s;
    abs_[6 * n + i] = c;
    abs_[7 * n + i] = __tanf(x * 0.5f);
    pw[i] = __powf(ax + 0.5f, y);
    exact[0 * n + i] = __saturatef(x);
    exact[1 * n + i] = __saturatef(__fmul_rn(y, 0.5f));
}
