// Tensor cores (wmma/mma), ldmatrix, cp.async.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;
extern "C" __global__ void wmma_f16(const half *a, const half *b, float *c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_misc(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, const signed char *ia, const signed char *ib, int *ic, const double *da, double *dc, const float *ta, float *tc, const half *ha, half *hc) {
    {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::load_matrix_sync(fa, a, 16); wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
    }
    {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::fill_fragment(fc, 0);
    wmma::load_matrix_sync(fa, ia, 16); wmma::load_matrix_sync(fb, ib, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(ic, fc, 16, wmma::mem_row_major);
    }
    {
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::fill_fragment(fc, 0.0);
    wmma::load_matrix_sync(fa, da, 8); wmma::load_matrix_sync(fb, da + 64, 8);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(dc, fc, 8, wmma::mem_row_major);
    }
    {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, ta, 8); wmma::load_matrix_sync(fb, ta + 128, 8);
    for (int t = 0; t < fa.num_elements; t++) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(tc, fc, 16, wmma::mem_row_major);
    }
    {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
    wmma::fill_fragment(fc, __float2half(0.0f));
    wmma::load_matrix_sync(fa, ha, 16); wmma::load_matrix_sync(fb, ha + 256, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(hc, fc, 16, wmma::mem_col_major);
    }
}
extern "C" __global__ void ldsm_cpasync(const float4 *g, float *o, int n) {
    __shared__ __align__(128) unsigned short sm[64 * 64];
    __shared__ __align__(16) float4 buf[256];
    int i = threadIdx.x;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)__cvta_generic_to_shared(&buf[i])), "l"(&g[i]));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"((unsigned)__cvta_generic_to_shared(&buf[i + 128])), "l"(&g[i + n]));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"((unsigned)__cvta_generic_to_shared(&buf[i + 64])), "l"(&g[i + 2*n]), "r"(n & 3));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 1;");
    asm volatile("cp.async.wait_all;");
    __syncthreads();
    for (int k = i; k < 64 * 64; k += blockDim.x) sm[k] = (unsigned short)(buf[k & 255].x);
    __syncthreads();
    unsigned a0, a1, a2, a3, b0, b1;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&sm[(i % 16) * 64 + (i / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(addr + 128));
    unsigned c1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(c1) : "r"(addr + 256));
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    unsigned h0 = 0, h1 = 0;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};" : "+r"(h0), "+r"(h1) : "r"(a0), "r"(a1), "r"(c1));
    int i0 = 0, i1 = 0, i2 = 0, i3 = 0;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    o[i] = d0 + d1 + d2 + d3 + (float)(h0 ^ h1) + (float)(i0 + i1 + i2 + i3);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(addr), "r"(a0), "r"(a1));
}
