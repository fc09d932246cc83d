// Register pressure: 48 f32 and 12 f64 values stay live across a fully unrolled update chain.
// spill_pressure_free has no limit; __launch_bounds__(256, 4) caps it at 64 registers and
// __maxnreg__(40) at 40, so ptxas spills to local memory (see the harness's spill column).
#define NV 48
#define ND 12
#define ROUNDS 3

__device__ __forceinline__ void pressure_body(const float* in, const double* din, float* out,
                                              double* dout)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int nt = gridDim.x * blockDim.x;
    float v[NV];
    double d[ND];
#pragma unroll
    for (int j = 0; j < NV; ++j)
        v[j] = in[j * nt + t];
#pragma unroll
    for (int j = 0; j < ND; ++j)
        d[j] = din[j * nt + t];
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
#pragma unroll
        for (int j = 0; j < NV; ++j)
            v[j] = __fmaf_rn(v[j], v[(j + 7) % NV], v[(j + 13) % NV]);
#pragma unroll
        for (int j = 0; j < ND; ++j)
            d[j] = __fma_rn(d[j], (double)v[(j * 5 + r) % NV], d[(j + 5) % ND]);
    }
#pragma unroll
    for (int j = 0; j < NV; ++j)
        out[j * nt + t] = v[j];
#pragma unroll
    for (int j = 0; j < ND; ++j)
        dout[j * nt + t] = d[j];
}

extern "C" __global__ void spill_pressure_free(const float* in, const double* din, float* out,
                                               double* dout)
{
    pressure_body(in, din, out, dout);
}

extern "C" __global__ void __launch_bounds__(256, 4)
    spill_pressure_lb(const float* in, const double* din, float* out, double* dout)
{
    pressure_body(in, din, out, dout);
}

extern "C" __global__ void __maxnreg__(40)
    spill_pressure_maxnreg(const float* in, const double* din, float* out, double* dout)
{
    pressure_body(in, din, out, dout);
}
