// Scalar __half arithmetic: add/sub/mul/fma (pinned _rn, no contraction), saturating forms,
// neg/abs/min/max, comparisons; __hdiv is an rcp.approx sequence (approximate).
#include <cuda_fp16.h>

extern "C" __global__ void f16_arith(const __half* a, const __half* b, const __half* c,
                                     __half* out, __half* quot, int* cmp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __hadd_rn(x, y);
    out[1 * n + i] = __hsub_rn(x, y);
    out[2 * n + i] = __hmul_rn(x, y);
    out[3 * n + i] = __hfma(x, y, z);
    out[4 * n + i] = __hneg(x);
    out[5 * n + i] = __habs(y);
    out[6 * n + i] = __hmax(x, y);
    out[7 * n + i] = __hmin(x, z);
    out[8 * n + i] = __hfma_sat(x, y, z);
    out[9 * n + i] = __hadd_sat(x, y);
    out[10 * n + i] = __hmul_sat(x, z);
    out[11 * n + i] = __hsub_sat(y, z);
    out[12 * n + i] = __hadd(x, z);                       // operands straight from memory
    out[13 * n + i] = __hmul_rn(__hmul_rn(x, y), z);      // products that reach subnormals
    quot[i] = __hdiv(x, y);
    cmp[i] = __heq(x, y) | (__hne(x, z) << 1) | (__hlt(x, y) << 2) | (__hle(y, z) << 3) |
             (__hgt(x, z) << 4) | (__hge(y, x) << 5) | (__hisnan(x) << 6) | (__hisinf(y) << 7);
}
