// PTX front-end test data: sm_80+ features (wmma/mma, cp.async, ldmatrix, redux, bf16, L2 hints).
#include <mma.h>
#include <cuda_pipeline.h>
#include <cuda_bf16.h>
#include <cuda/barrier>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_tf32_int8(const float* a, const float* b, float* c, const signed char* ia, const signed char* ib, int* ic) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  for (int t = 0; t < fa.num_elements; t++) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> ia_f;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> ib_f;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> ic_f;
  wmma::fill_fragment(ic_f, 0);
  wmma::load_matrix_sync(ia_f, ia, 16);
  wmma::load_matrix_sync(ib_f, ib, 16);
  wmma::mma_sync(ic_f, ia_f, ib_f, ic_f);
  wmma::store_matrix_sync(ic, ic_f, 16, wmma::mem_col_major);
}

extern "C" __global__ void async_copy(const float4* g, float4* out, int n) {
  __shared__ float4 s[256];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &g[t], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  unsigned r = __reduce_add_sync(0xffffffff, (unsigned)t) + __reduce_max_sync(0xffffffff, (unsigned)t) + __reduce_or_sync(0xffffffff, (unsigned)t);
  float4 v = s[(t + 1) & 255];
  v.x += (float)r;
  out[t] = v;
}

extern "C" __global__ void mma_ptx(const unsigned* a, const unsigned* b, float* c) {
  __shared__ unsigned short sm[1024];
  unsigned t = threadIdx.x;
  sm[t] = (unsigned short)t;
  __syncthreads();
  unsigned r0, r1, r2, r3;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&sm[(t & 15) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(a[t]), "r"(b[t]), "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(a[t]), "r"(b[t]));
  int i0, i1, i2, i3;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
               : "=r"(i0), "=r"(i1), "=r"(i2), "=r"(i3)
               : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(a[t]), "r"(b[t]), "r"(0));
  double e0, e1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(e0), "=d"(e1) : "d"((double)d0), "d"((double)d1), "d"(0.0), "d"(0.0));
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  float v;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(c), "l"(pol));
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(c + 4));
  asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(c + 8));
  c[t] = d0 + d1 + d2 + d3 + (float)(i0 + i1 + i2 + i3) + (float)(e0 + e1) + v;
}

extern "C" __global__ void barrier_api(float* out) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  out[threadIdx.x] *= 2.0f;
  bar.arrive_and_wait();
  out[threadIdx.x] += 1.0f;
}
