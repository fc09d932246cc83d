// Constant-bank tables indexed by a uniform loop counter: ULDC UR, c[0x3][UR] (issue 15).
__constant__ float cG[64];
__constant__ double cD[32];
extern "C" __global__ void uconst(float *out, const float *in, int r, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.f, t = 0.f;
    for (int i = -r; i <= r; i++) {
        float g = cG[i + r];
        float v = in[x + i * w];
        s += v * g;
        t += g;
    }
    double d = 0;
    for (int i = 0; i < r; i++) d += cD[i] * in[x + i];
    out[x] = s / t + (float)d;
}
