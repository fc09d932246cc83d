// Register pressure under .maxnreg: forces spills to local memory.
extern "C" {
__global__ void __maxnreg__(24) spill_kernel(float *out, const float *in) {
    float acc[40];
#pragma unroll
    for (int j = 0; j < 40; ++j) acc[j] = in[threadIdx.x + j * 64];
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int j = 0; j < 40; ++j) acc[j] = acc[j] * acc[(j + k + 1) % 40] + 1.0f;
    float s = 0;
#pragma unroll
    for (int j = 0; j < 40; ++j) s += acc[j] * j;
    out[threadIdx.x] = s;
}
__device__ __noinline__ float spill_helper(const float *in, int n) {
    float acc[40];
#pragma unroll
    for (int j = 0; j < 40; ++j) acc[j] = in[n + j * 64];
#pragma unroll
    for (int j = 0; j < 40; ++j) acc[j] = acc[j] * acc[(j + 3) % 40] + 1.0f;
    float s = 0;
#pragma unroll
    for (int j = 0; j < 40; ++j) s += acc[j] * j;
    return s;
}
__global__ void __maxnreg__(32) spill_caller(float *out, const float *in) {
    out[threadIdx.x] = spill_helper(in, threadIdx.x);
}
}
extern "C" __global__ void __maxnreg__(32) spill_wide(double *out, const double2 *in) {
    double2 acc[12];
#pragma unroll
    for (int j = 0; j < 12; ++j) acc[j] = in[threadIdx.x + j * 64];
#pragma unroll
    for (int k = 0; k < 3; ++k)
#pragma unroll
        for (int j = 0; j < 12; ++j) {
            acc[j].x = acc[j].x * acc[(j + k + 1) % 12].y + 1.0;
            acc[j].y = acc[j].y * acc[(j + k + 2) % 12].x - 1.0;
        }
    double s = 0;
#pragma unroll
    for (int j = 0; j < 12; ++j) s += acc[j].x * j + acc[j].y + acc[j].x * acc[j].y;
    out[threadIdx.x] = s;
}
