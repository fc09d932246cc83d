// Device printf (the vprintf call with an argument buffer on the stack). Only one thread prints
// per kernel in printf_single; in printf_blocks thread 0 of every block prints, and the expected
// text lists the blocks in launch order (block-linear order), which an emulator must follow; a
// GPU may print the blocks in any order.
#include <cstdio>

extern "C" __global__ void printf_single(const int* iv, const float* fv, const double* dv,
                                         int* out)
{
    int t = threadIdx.x;
    out[t] = (int)((unsigned)iv[t] * 3u);
    if (t != 0)
        return;
    printf("hello from block %d thread %d of %d\n", blockIdx.x, t, blockDim.x);
    printf("ints: %d %i %u %x %X %o|%5d|%-6d|%+05d|%%\n", iv[1], iv[2], (unsigned)iv[3],
           (unsigned)iv[4], (unsigned)iv[5] & 0xffffu, (unsigned)iv[6] & 0777u, iv[7] % 1000,
           iv[8] % 100, iv[9] % 1000);
    printf("long: %lld %llu %ld %#llx\n", (long long)iv[10] * 1000003LL,
           (unsigned long long)(unsigned)iv[11] << 20, (long)iv[12], 0xdeadbeefcafeULL);
    printf("char %c%c%c str [%s] [%8s] [%-8s]\n", 'o', 'k', 'A' + (iv[13] & 15), "txt",
           "right", "left");
    printf("float: %f %.3f %10.4f %e %.2E %g %G\n", fv[0], fv[1], fv[2], fv[3], fv[4],
           fv[5] * 1e-6f, fv[6] * 1e8f);
    printf("double: %.17g %.10e %f %g\n", dv[0], dv[1] * 1e100, dv[2], 1.0 / 3.0);
    printf("special: %f %f %e\n", __int_as_float(0x7f800000), -__int_as_float(0x7f800000),
           0.0);
}

extern "C" __global__ void printf_blocks(const int* iv, int* sums)
{
    __shared__ int partial[64];
    int t = threadIdx.x;
    partial[t] = iv[blockIdx.x * 64 + t];
    __syncthreads();
    for (int s = 32; s > 0; s >>= 1) {
        if (t < s)
            partial[t] = (int)((unsigned)partial[t] + (unsigned)partial[t + s]);
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = partial[0];
        printf("block %d/%d: sum=%d first=%08x\n", blockIdx.x, gridDim.x, partial[0],
               (unsigned)iv[blockIdx.x * 64]);
    }
}
