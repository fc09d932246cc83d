// Vector memory accesses: float4/int4/longlong2 (128-bit) and float2 (64-bit) global loads and
// stores, uchar4 (32-bit) byte vectors, and a float4 array in shared memory read back both as
// vectors and as scalars.

extern "C" __global__ void vec_f4(const float4* a, const float4* b, float4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = a[i], q = b[i];
    out[i] = make_float4(__fmaf_rn(p.x, q.x, 1.0f), p.y - q.y, p.z * q.w, fmaxf(p.w, q.z));
}

extern "C" __global__ void vec_f2(const float2* a, float2* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float2 p = a[i];
    out[i] = make_float2(p.y + 1.0f, p.x - p.y);
}

extern "C" __global__ void vec_i4(const int4* a, int4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int4 p = a[i];
    out[i] = make_int4(p.w, p.z ^ p.x, (int)((unsigned)p.y + (unsigned)p.x),
                       (int)((unsigned)p.x - (unsigned)p.w));
}

extern "C" __global__ void vec_ll2(const longlong2* a, longlong2* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    longlong2 p = a[i];
    out[i] = make_longlong2(p.y, (long long)((unsigned long long)p.x + 1ull));
}

extern "C" __global__ void vec_uchar4(const uchar4* a, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uchar4 c = a[i];
    out[i] = (unsigned)c.w | ((unsigned)c.z << 8) | ((unsigned)c.y << 16) | ((unsigned)c.x << 24);
}

// 64 threads per block.
extern "C" __global__ void vec_smem(const float4* a, float4* out, float* sout)
{
    __shared__ float4 s[64];
    int t = threadIdx.x, g = blockIdx.x * 64 + t;
    s[t] = a[g];
    __syncthreads();
    float4 v = s[63 - t];
    float4 w = s[(t + 1) & 63];
    out[g] = make_float4(v.x, w.y, v.z, w.w);
    const float* sf = reinterpret_cast<const float*>(s);
    sout[g] = sf[(t * 4 + 5) & 255];
}
