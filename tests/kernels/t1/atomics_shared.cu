// Atomics on shared memory (ATOMS): per-block integer accumulators updated by every thread with
// add/min/max/and/or/xor/inc/CAS, float adds of exactly representable values (exact in any order),
// then one thread per block publishes the block's results to global memory.

extern "C" __global__ void atom_shared(const int* a, int* out, float* fout)
{
    __shared__ int s_add, s_min, s_max, s_cnt;
    __shared__ unsigned s_and, s_or, s_xor, s_inc, s_cas_hits;
    __shared__ unsigned long long s_add64;
    __shared__ float s_fsum;
    __shared__ unsigned s_bins[8];
    int t = threadIdx.x;
    if (t == 0) {
        s_add = 0;
        s_min = 0x7fffffff;
        s_max = -0x7fffffff - 1;
        s_cnt = 0;
        s_and = 0xffffffffu;
        s_or = 0;
        s_xor = 0;
        s_inc = 0;
        s_cas_hits = 0;
        s_add64 = 0;
        s_fsum = 0.0f;
    }
    if (t < 8)
        s_bins[t] = 0;
    __syncthreads();
    int x = a[blockIdx.x * blockDim.x + t];
    unsigned ux = (unsigned)x;
    atomicAdd(&s_add, x >> 12);
    atomicMin(&s_min, x);
    atomicMax(&s_max, x);
    if (x & 1)
        atomicAdd(&s_cnt, 1);
    atomicAnd(&s_and, ux | 0xff00ff00u);
    atomicOr(&s_or, ux & 0x00010001u);
    atomicXor(&s_xor, ux);
    atomicInc(&s_inc, 50u);
    atomicAdd(&s_add64, (unsigned long long)ux);
    atomicAdd(&s_fsum, __fmul_rn((float)(x >> 24), 0.25f));
    atomicAdd(&s_bins[ux >> 29], 1u);
    // Exactly one thread per block wins this CAS.
    if (atomicCAS(&s_cas_hits, 0u, (unsigned)t + 1u) == 0u)
        atomicOr(&s_or, 0x80000000u);
    __syncthreads();
    if (t == 0) {
        int* o = out + 20 * blockIdx.x;
        o[0] = s_add;
        o[1] = s_min;
        o[2] = s_max;
        o[3] = s_cnt;
        o[4] = (int)s_and;
        o[5] = (int)s_or;
        o[6] = (int)s_xor;
        o[7] = (int)s_inc;
        o[8] = (int)(s_add64 & 0xffffffffu);
        o[9] = (int)(s_add64 >> 32);
        o[10] = s_cas_hits != 0u;
        for (int k = 0; k < 8; ++k)
            o[11 + k] = (int)s_bins[k];
        fout[blockIdx.x] = s_fsum;
    }
}
