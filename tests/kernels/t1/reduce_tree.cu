// Shared-memory tree reductions (sequential addressing): templated on block size and element type,
// two elements added while loading, halving strides with __syncthreads down to a warp, then the
// last warp steps synchronised with __syncwarp. Float adds are pinned; the reference replays the
// tree in the same order.

__device__ __forceinline__ float radd(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ unsigned radd(unsigned a, unsigned b) { return a + b; }
__device__ __forceinline__ unsigned long long radd(unsigned long long a, unsigned long long b)
{
    return a + b;
}

template <unsigned BS, typename T>
__global__ void reduce_tree(const T* in, T* out, unsigned n)
{
    __shared__ T s[BS];
    unsigned t = threadIdx.x, i = blockIdx.x * BS * 2 + t;
    T v = i < n ? in[i] : T(0);
    if (i + BS < n)
        v = radd(v, in[i + BS]);
    s[t] = v;
    __syncthreads();
#pragma unroll
    for (unsigned stride = BS / 2; stride >= 32; stride >>= 1) {
        if (t < stride)
            s[t] = radd(s[t], s[t + stride]);
        __syncthreads();
    }
    if (t < 32) {
#pragma unroll
        for (unsigned stride = 16; stride > 0; stride >>= 1) {
            if (t < stride)
                s[t] = radd(s[t], s[t + stride]);
            __syncwarp();
        }
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

template __global__ void reduce_tree<256, float>(const float*, float*, unsigned);
template __global__ void reduce_tree<128, unsigned>(const unsigned*, unsigned*, unsigned);
template __global__ void reduce_tree<64, unsigned long long>(const unsigned long long*,
                                                             unsigned long long*, unsigned);
