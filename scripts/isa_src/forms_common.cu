// Census top-150 forms that the other probe programs miss: shared memory through register
// addresses, 64-bit pointer arithmetic in registers, uniform-datapath ALU, SHFL/WARPSYNC forms.
#include <cstdint>
extern "C" __global__ void shared_regaddr(float *out, const float4 *in, int n, float s, unsigned sh) {
    __shared__ float buf[1024];
    __shared__ float4 buf4[256];
    __shared__ unsigned short hbuf[512];
    __shared__ double dbuf[256];
    int t = threadIdx.x;
    float *p = buf + t * 3;              // register address + immediate offsets
    p[1] = (float)t; p[2] = s;
    buf4[t + 1] = in[t];
    ((float2 *)buf)[t + 100] = make_float2(s, s);
    dbuf[t + 2] = (double)s;
    hbuf[t] = (unsigned short)t;
    __syncthreads();
    float a = p[4] + p[5] + buf[7] + buf[9];       // uniform addresses: [UR+imm]
    float4 v = buf4[3];
    float2 w = ((float2 *)buf)[t + 101];
    double d = dbuf[t + 3];
    float h = (float)hbuf[t ^ 1];
    float r = fmaf(a, s, v.x) + fmaf(v.y, s, w.x) * s + v.z * v.w + (float)d + h;
    __fmul_rn(r, s);
    out[t] = r * s + (float)(((unsigned)t) >> (sh & 31)) + (float)(((unsigned)n) >> sh);
}
extern "C" __global__ void ftz_fma(float *o, const float *a, const float *b, float s, int n) {
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    float r;
    asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(o[i]));
    asm("fma.rn.ftz.f32 %0, %1, %2, %0;" : "+f"(r) : "f"(x), "f"(s));
    asm("mul.ftz.f32 %0, %0, %1;" : "+f"(r) : "f"(y));
    o[i] = r;
}
extern "C" __global__ void ptr_math(float4 *o, float4 **tab, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 *p = tab[i & 7];                 // pointer in registers
    int k = idx[i];
    float4 v = p[k];                        // LEA + LEA.HI.X.SX32
    float4 u = p[k + 1];
    long long q = (long long)k * 3 + i;
    float4 w = p[q];                        // 64-bit index: LEA.HI.X
    float4 z = ((float4 *)((char *)o + 64))[i];  // LDG.E.128 with offset
    o[i] = make_float4(v.x + u.x + w.x + z.x, v.y, u.y, w.w + z.w);
}
extern "C" __global__ void generic_ld(long long *o, long long **pp, unsigned short *h, int n) {
    int i = threadIdx.x;
    long long *p = pp[i];
    long long a = p[1] + p[3];              // generic LD.E.64 with offsets
    o[i] = a;
    h[i * n] = (unsigned short)a;           // STG.E.U16 without offset
}
extern "C" __global__ void shfl_forms(int *o, const int *a, int n, unsigned mask) {
    int i = threadIdx.x;
    int x = a[i];
    x += __shfl_down_sync(0xffffffff, x, 1);
    x += __shfl_down_sync(0xffffffff, x, n, n + 1);
    if (x > n) x += __shfl_sync(mask, x, 3);     // divergent: WARPSYNC.COLLECTIVE
    if (x & 1) x ^= __shfl_xor_sync(mask & 0xff, x, 2, 8);
    o[i] = x;
}
extern "C" __global__ void uniform_alu(unsigned *o, unsigned a, unsigned b, unsigned c, int n) {
    unsigned u = (a & 0xff00u) | (b ^ c);           // ULOP3
    unsigned v = (a >> 3) + (b << 2) + (c & ~a);
    unsigned w = __ballot_sync(0xffffffff, threadIdx.x & 1);
    unsigned long long p = (unsigned long long)(o + w);   // R2UR-ish
    o[threadIdx.x + u % 7] = u + v + (unsigned)p + __popc(a) + __clz(b);
    for (int k = 0; k < n; ++k) o[k * 32 + threadIdx.x] = k * u;
}
