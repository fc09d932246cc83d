// Float atomics whose results are exact in any order: every addend is a multiple of 1/8 with a
// small magnitude, so every partial sum is representable and float addition is associative on
// them. Global atomicAdd (RED/ATOM.ADD.F32), shared atomicAdd, and atomicExch on floats with one
// value per address.

extern "C" __global__ void atom_float(const int* a, float* gsum, float* bsum, float* exch, int n)
{
    __shared__ float s[4];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t < 4)
        s[t] = 0.0f;
    __syncthreads();
    if (i < n) {
        float v = __fmul_rn((float)(a[i] >> 22), 0.125f);
        atomicAdd(&gsum[i & 7], v);
        atomicAdd(&s[t & 3], v);
        atomicExch(&exch[i & 15], (float)(i & 15) + 0.5f);
    }
    __syncthreads();
    if (t < 4)
        bsum[4 * blockIdx.x + t] = s[t];
}
