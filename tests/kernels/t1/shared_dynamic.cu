// Dynamic shared memory (extern __shared__, size from the launch): a rotate-by-shift through one
// array, several typed arrays carved from one allocation at computed offsets, and a templated
// kernel whose extern shared array has the template's element type.

extern "C" __global__ void dyn_rotate(const float* in, float* out, int shift)
{
    extern __shared__ float sbuf[];
    int t = threadIdx.x, n = blockDim.x;
    sbuf[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = sbuf[(t + shift) % n];
}

extern "C" __global__ void dyn_carve(const int* a, long long* out64, int* out32)
{
    extern __shared__ __align__(16) unsigned char smem[];
    int n = blockDim.x, t = threadIdx.x;
    long long* s64 = reinterpret_cast<long long*>(smem);
    int* s32 = reinterpret_cast<int*>(smem + 8 * n);
    short* s16 = reinterpret_cast<short*>(s32 + n);
    int x = a[blockIdx.x * n + t];
    s64[t] = (long long)x << 8;
    s32[t] = (x ^ 0x5a5a5a5a) >> 1;
    s16[t] = (short)(x >> 16);
    __syncthreads();
    int u = (t + 1) % n, v = (n - 1) - t;
    out64[blockIdx.x * n + t] = s64[u] + s16[v];
    out32[blockIdx.x * n + t] = s32[v] - s16[u];
}

template <typename T>
__global__ void dyn_pairsum(const T* in, T* out)
{
    extern __shared__ __align__(16) unsigned char raw[];
    T* s = reinterpret_cast<T*>(raw);
    int t = threadIdx.x, n = blockDim.x;
    s[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = s[t] + s[n - 1 - t];
}

template __global__ void dyn_pairsum<unsigned>(const unsigned*, unsigned*);
template __global__ void dyn_pairsum<unsigned long long>(const unsigned long long*,
                                                         unsigned long long*);
