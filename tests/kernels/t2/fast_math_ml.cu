// ML-style f32 code under -use_fast_math (MUFU.EX2/RCP/RSQ/SIN/COS/LG2, .ftz): a warp softmax
// (expf, shuffle reductions, division), sigmoid / SiLU / softplus, vector normalisation with
// rsqrtf, sincosf with range reduction, and flushes of subnormal operands and results.
extern "C" __global__ void fm_softmax(const float* x, float* y)
{
    int lane = threadIdx.x & 31, row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    float v[4], m = -INFINITY, s = 0.0f;
    for (int j = 0; j < 4; ++j) {
        v[j] = x[row * 128 + 32 * j + lane];
        m = fmaxf(m, v[j]);
    }
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    for (int j = 0; j < 4; ++j) {
        v[j] = expf(v[j] - m);
        s += v[j];
    }
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    for (int j = 0; j < 4; ++j)
        y[row * 128 + 32 * j + lane] = v[j] / s;
}

extern "C" __global__ void fm_activations(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float sg = 1.0f / (1.0f + expf(-v));
    out[0 * n + i] = sg;
    out[1 * n + i] = v * sg;                             // SiLU
    out[2 * n + i] = log1pf(expf(v));                    // softplus
    out[3 * n + i] = 1.0f / (1.0f + exp2f(-1.4426950f * v));
}

// out[i] = x[i] / ||x[row]|| for rows of 8 (rsqrtf of the sum of squares)
extern "C" __global__ void fm_normalize(const float* x, float* out, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int j = 0; j < 8; ++j)
        s = __fmaf_rn(x[8 * r + j], x[8 * r + j], s);
    float k = rsqrtf(s);
    for (int j = 0; j < 8; ++j)
        out[8 * r + j] = x[8 * r + j] * k;
}

// sincosf / tanf / logf / exp2f under fast math, on |x| up to about 40; subnormal operands and
// results are flushed (ftz): tiny[] holds subnormal and near-underflow operands.
extern "C" __global__ void fm_trig_ftz(const float* x, const float* tiny, float* trig, float* ftz,
                                       int n, int nt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] * 10.0f, s, c;
        sincosf(v, &s, &c);
        trig[0 * n + i] = s;
        trig[1 * n + i] = c;
        trig[2 * n + i] = __fdividef(s, c + 2.0f);
    }
    if (i < nt) {
        float t = tiny[i];
        ftz[0 * nt + i] = t * 4.0f;                      // subnormal results flushed
        ftz[1 * nt + i] = exp2f(t * 150.0f);             // ex2 of large negative: 0
        ftz[2 * nt + i] = sqrtf(fabsf(t));               // subnormal operand: 0
    }
}
