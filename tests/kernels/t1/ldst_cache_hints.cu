// Cache-operator loads and stores: __ldg (ld.global.nc, also on float4), __ldcg, __ldca, __ldcs,
// __ldlu, __ldcv, __stcg, __stcs, __stwb, __stwt; const __restrict__ pointers; volatile accesses
// (each read and write is a separate memory operation).

extern "C" __global__ void cache_hints(const float* __restrict__ a, const int* __restrict__ b,
                                       const float4* c, float* out, int* iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = __ldg(a + i);
    int y = __ldcg(b + i);
    float z = __ldca(a + (i ^ 1));
    int w = __ldcs(b + (i + 3) % n);
    float u = __ldlu(a + (n - 1 - i));
    int v = __ldcv(b + (i >> 1));
    float4 q = __ldg(c + i);
    __stcg(out + i, x + z);
    __stcs(out + n + i, u - q.x);
    __stwb(iout + i, y ^ w);
    __stwt(iout + n + i, (int)((unsigned)v + (q.y > 0.0f ? 1u : 0u)));
    out[2 * n + i] = q.z + q.w;
}

extern "C" __global__ void volatile_io(volatile int* buf, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int first = buf[i];
    buf[i] = (int)((unsigned)first * 3u);
    int second = buf[i];
    buf[i] = second ^ 0x0f0f0f0f;
    out[i] = (int)((unsigned)first - (unsigned)second);
}
