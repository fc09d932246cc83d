// Block-level scans in shared memory: a Hillis-Steele inclusive scan with double buffering (int
// and pinned float), and a work-efficient Blelloch exclusive scan (up-sweep, clear, down-sweep)
// over 2 elements per thread, for unsigned and float (the reference replays the same operations).

template <typename T>
__device__ __forceinline__ T sadd(T a, T b)
{
    return a + b;
}
template <>
__device__ __forceinline__ float sadd<float>(float a, float b)
{
    return __fadd_rn(a, b);
}

template <typename T>
__global__ void scan_hillis_steele(const T* in, T* out)
{
    __shared__ T buf[2][256];
    int t = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + t;
    int cur = 0;
    buf[0][t] = in[g];
    __syncthreads();
    for (int o = 1; o < n; o <<= 1) {
        T v = buf[cur][t];
        if (t >= o)
            v = sadd(buf[cur][t - o], v);
        buf[cur ^ 1][t] = v;
        __syncthreads();
        cur ^= 1;
    }
    out[g] = buf[cur][t];
}

// blockDim.x threads scan 2 * blockDim.x elements (a power of two).
template <typename T>
__global__ void scan_blelloch(const T* in, T* out, T* totals)
{
    __shared__ T s[512];
    int t = threadIdx.x, m = 2 * blockDim.x, base = blockIdx.x * m;
    s[2 * t] = in[base + 2 * t];
    s[2 * t + 1] = in[base + 2 * t + 1];
    int off = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            s[bi] = sadd(s[ai], s[bi]);
        }
        off <<= 1;
    }
    if (t == 0) {
        totals[blockIdx.x] = s[m - 1];
        s[m - 1] = T(0);
    }
    for (int d = 1; d < m; d <<= 1) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            T a = s[ai];
            s[ai] = s[bi];
            s[bi] = sadd(a, s[bi]);
        }
    }
    __syncthreads();
    out[base + 2 * t] = s[2 * t];
    out[base + 2 * t + 1] = s[2 * t + 1];
}

template __global__ void scan_hillis_steele<unsigned>(const unsigned*, unsigned*);
template __global__ void scan_hillis_steele<float>(const float*, float*);
template __global__ void scan_blelloch<unsigned long long>(const unsigned long long*,
                                                        unsigned long long*, unsigned long long*);
template __global__ void scan_blelloch<float>(const float*, float*, float*);
