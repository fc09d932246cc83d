// __nv_bfloat16 and __nv_bfloat162 arithmetic (sm_80+: fma.rn.bf16 forms, sm_90: add/mul.bf16):
// add/sub/mul/fma (_rn: no contraction), relu and saturating fma, min/max, neg/abs, compares,
// and division (div.approx.f32 then one rounding, which is correctly rounded for bf16).
#include <cuda_bf16.h>

extern "C" __global__ void bf16_arith(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                      const __nv_bfloat16* c, __nv_bfloat16* out, int* cmp,
                                      int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat16 x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __hadd_rn(x, y);
    out[1 * n + i] = __hsub_rn(x, y);
    out[2 * n + i] = __hmul_rn(x, y);
    out[3 * n + i] = __hfma(x, y, z);
    out[4 * n + i] = __hfma_relu(x, y, z);
    out[5 * n + i] = __hfma_sat(x, y, z);
    out[6 * n + i] = __hmax(x, y);
    out[7 * n + i] = __hmin(x, z);
    out[8 * n + i] = __hneg(__habs(y));
    out[9 * n + i] = __hdiv(x, y);
    cmp[i] = __heq(x, y) | (__hlt(x, y) << 1) | (__hge(y, z) << 2) | (__hgt(x, z) << 3);
}

extern "C" __global__ void bf162_arith(const __nv_bfloat162* a, const __nv_bfloat162* b,
                                       const __nv_bfloat162* c, __nv_bfloat162* out,
                                       float2* outf, unsigned* masks, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat162 x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __hadd2_rn(x, y);
    out[1 * n + i] = __hsub2_rn(x, y);
    out[2 * n + i] = __hmul2_rn(x, y);
    out[3 * n + i] = __hfma2(x, y, z);
    out[4 * n + i] = __hfma2_relu(x, z, y);
    out[5 * n + i] = __hmax2(x, y);
    out[6 * n + i] = __hmin2(y, z);
    out[7 * n + i] = __lowhigh2highlow(__hneg2(x));
    out[8 * n + i] = __h2div(x, z);
    out[9 * n + i] = __hmul2_rn(__hadd2_rn(x, y), __hsub2_rn(y, z));
    outf[i] = __bfloat1622float2(__hfma2(x, x, y));
    masks[0 * n + i] = __hlt2_mask(x, y);
    masks[1 * n + i] = __hbge2(y, z) | (__hbne2(x, y) << 1);
}
