// Parameter layouts: large structs, mixed alignment, many params, byval arrays.
struct Big { float v[1024]; };
struct Mixed { char c; double d; short s; int i; };
struct Huge { int v[7000]; };
extern "C" {
__global__ void big_param(Big b, float *out) { out[threadIdx.x] = b.v[threadIdx.x]; }
__global__ void mixed_params(char a, Mixed m, short s, double d, float *out, long long l,
                             unsigned char u, float2 f2, float4 f4) {
    out[0] = a + m.c + m.d + m.s + m.i + s + d + l + u + f2.x + f4.w;
}
__global__ void huge_param(Huge h, int *out) { out[threadIdx.x] = h.v[threadIdx.x * 7]; }
__global__ void many_params(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7,
                            int a8, int a9, int a10, int a11, int a12, int a13, int a14,
                            int a15, int *out) {
    out[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15;
}
}
