// Dependent chains of pinned float operations: Horner polynomial evaluation with __fmaf_rn, a
// dot product accumulated with fma in a fixed order, Kahan compensated summation (which only works
// when no operation is reassociated or fused), and a complex multiply with two fmas per part.

__constant__ float kPoly[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, 1.5f, -2.25f, 0.75f};

extern "C" __global__ void horner(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float acc = kPoly[7];
#pragma unroll
    for (int k = 6; k >= 0; --k)
        acc = __fmaf_rn(acc, v, kPoly[k]);
    out[i] = acc;
}

// Each thread owns one row of a row-major [n x 16] matrix.
extern "C" __global__ void dot_rows(const float* m, const float* v, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float* row = m + 16 * i;
    float acc = 0.0f;
    for (int k = 0; k < 16; ++k)
        acc = __fmaf_rn(row[k], v[k], acc);
    out[i] = acc;
}

extern "C" __global__ void kahan_rows(const float* m, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float* row = m + 16 * i;
    float sum = 0.0f, c = 0.0f;
    for (int k = 0; k < 16; ++k) {
        float y = __fsub_rn(row[k], c);
        float t = __fadd_rn(sum, y);
        c = __fsub_rn(__fsub_rn(t, sum), y);
        sum = t;
    }
    out[2 * i] = sum;
    out[2 * i + 1] = c;
}

extern "C" __global__ void cmul(const float2* a, const float2* b, float2* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 p = a[i], q = b[i];
    float re = __fmaf_rn(p.x, q.x, -__fmul_rn(p.y, q.y));
    float im = __fmaf_rn(p.x, q.y, __fmul_rn(p.y, q.x));
    out[i] = make_float2(re, im);
}
