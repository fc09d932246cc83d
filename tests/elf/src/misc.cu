// Warp intrinsics, atomics, switch (jump table), f64 division (internal subroutines), spills.
extern "C" {
__global__ void warp_ops(int *out, const int *in) {
    int v = in[threadIdx.x];
    v += __shfl_down_sync(0xffffffff, v, 1);
    unsigned b = __ballot_sync(0xffffffff, v > 0);
    int a = __any_sync(0xffffffff, v == 3);
    out[threadIdx.x] = v + b + a + __popc(__activemask());
}
__global__ void atomics(unsigned long long *p, float *f, int *q) {
    atomicAdd(p, 1ull);
    atomicAdd(f, 1.0f);
    atomicCAS(q, 0, 1);
    atomicMax(q + 1, (int)threadIdx.x);
    atomicExch(q + 2, 5);
    atomicAdd_system(q + 3, 1);
}
__global__ void jump_table(int *out, const int *in) {
    int r;
    switch (in[threadIdx.x]) {
    case 0: r = 11; break; case 1: r = 23; break; case 2: r = 35; break;
    case 3: r = 47; break; case 4: r = 51; break; case 5: r = 69; break;
    case 6: r = 71; break; case 7: r = 83; break; case 8: r = 97; break;
    default: r = -1;
    }
    out[threadIdx.x] = r;
}
__global__ void fdiv_kernel(double *out, const double *a, const double *b, float *fo, const float *fa) {
    int i = threadIdx.x;
    out[i] = a[i] / b[i] + sqrt(a[i]);
    fo[i] = fa[i] / fo[i];
}
__global__ void __launch_bounds__(1024) spills(float *out, const float *in) {
    float acc[48];
    for (int j = 0; j < 48; ++j) acc[j] = in[threadIdx.x + j * 32];
    for (int k = 0; k < 8; ++k)
        for (int j = 0; j < 48; ++j) acc[j] = acc[j] * acc[(j + k) % 48] + 1.0f;
    float s = 0;
    for (int j = 0; j < 48; ++j) s += acc[j] * j;
    out[threadIdx.x] = s;
}
}
