// Register pressure under the ptxas option -maxrregcount=32 (ptxas_flags: nvcc -ptx does not
// pass -maxrregcount into the PTX): 40 live 32-bit integers mixed in an unrolled network, and a
// second kernel whose per-thread float accumulators live across a loop.
#define NW 40

extern "C" __global__ void spill_maxrreg_int(const unsigned* in, unsigned* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int nt = gridDim.x * blockDim.x;
    unsigned w[NW];
#pragma unroll
    for (int j = 0; j < NW; ++j)
        w[j] = in[j * nt + t];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int j = 0; j < NW; ++j)
            w[j] = (w[j] ^ __funnelshift_l(w[(j + 3) % NW], w[(j + 3) % NW], j % 31 + 1)) +
                   w[(j + 17) % NW] * 2654435761u;
    }
#pragma unroll
    for (int j = 0; j < NW; ++j)
        out[j * nt + t] = w[j];
}

extern "C" __global__ void spill_maxrreg_acc(const float* x, const float* coef, float* out,
                                             int steps)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[32];
#pragma unroll
    for (int k = 0; k < 32; ++k)
        acc[k] = coef[k];
    for (int s = 0; s < steps; ++s) {                  // a real loop: all 32 live across it
        float xv = x[s * 64 + t];
#pragma unroll
        for (int k = 0; k < 32; ++k)
            acc[k] = __fmaf_rn(acc[k], xv, acc[(k + 1) % 32]);
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; ++k)
        sum = __fadd_rn(sum, acc[k]);
    out[t] = sum;
}
