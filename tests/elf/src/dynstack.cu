// alloca (dynamic stack), maxnreg, large local frames.
extern "C" {
__global__ void __maxnreg__(32) alloca_kernel(int *out, int n) {
    int *buf = (int *)alloca(n * sizeof(int));
    for (int j = 0; j < n; ++j) buf[j] = j * threadIdx.x;
    out[threadIdx.x] = buf[(threadIdx.x + 1) % n];
}
}
