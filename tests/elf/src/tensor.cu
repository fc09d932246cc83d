// wmma (tensor cores), cp.async, redux, match: sm_80+.
#include <mma.h>
#include <cuda_pipeline.h>
using namespace nvcuda;
extern "C" {
__global__ void wmma_kernel(const half *a, const half *b, float *c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
__global__ void cp_async_kernel(float *out, const float *in) {
    __shared__ float s[128];
    __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[threadIdx.x] = s[127 - threadIdx.x] + __reduce_add_sync(0xffffffff, threadIdx.x)
                       + __match_any_sync(0xffffffff, threadIdx.x & 3);
}
}
