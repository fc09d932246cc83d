// The wmma API (nvcuda::wmma): load_matrix_sync / mma_sync / store_matrix_sync for f16 (f32
// and f16 accumulators; m16n16k16, m32n8k16, m8n32k16), bf16, tf32 (m16n16k8), s8/u8 and f64
// (m8n8k4), with row- and column-major operands from global and shared memory. Integer-valued
// data keeps every sum exact.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// Two warps: warp w computes D[:, 16w:16w+16] (16x32, row-major) = A (16x16, row-major, global)
// x B (16x32, column-major: B[k][n] at B[n * 16 + k]) + C (16x32, row-major).
extern "C" __global__ void wmma_f16_f32(const __half* A, const __half* B, const float* C, float* D)
{
    int w = threadIdx.x / 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, A, 16);
    wmma::load_matrix_sync(fb, B + w * 16 * 16, 16);
    wmma::load_matrix_sync(fc, C + w * 16, 32, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D + w * 16, fc, 32, wmma::mem_row_major);
}

// f16 accumulator, operands staged through shared memory (int8 >> 4 converted to half):
// m32n8k16 with A column-major (A[m][k] at sA[k * 32 + m]) and B row-major (B[k][n] at
// sB[k * 8 + n]); D (32x8) stored column-major.
extern "C" __global__ void wmma_f16_f16(const signed char* A, const signed char* B, __half* D)
{
    __shared__ __half sA[16 * 32];
    __shared__ __half sB[16 * 8];
    int t = threadIdx.x;
    for (int i = t; i < 16 * 32; i += 32) {
        int m = i / 16, k = i % 16;       // A given row-major 32x16
        sA[k * 32 + m] = __int2half_rn(A[i] >> 4);
    }
    for (int i = t; i < 16 * 8; i += 32)
        sB[i] = __int2half_rn(B[i] >> 4);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, __half> fc;
    wmma::fill_fragment(fc, __float2half(3.0f));
    wmma::load_matrix_sync(fa, sA, 32);
    wmma::load_matrix_sync(fb, sB, 8);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D, fc, 32, wmma::mem_col_major);
}

// bf16 m8n32k16: A 8x16 row-major, B 16x32 row-major, f32 accumulator from zero, stored
// row-major; then every element is scaled through the fragment's element array.
extern "C" __global__ void wmma_bf16(const signed char* A, const signed char* B, float* D)
{
    __shared__ __nv_bfloat16 sA[8 * 16];
    __shared__ __nv_bfloat16 sB[16 * 32];
    int t = threadIdx.x;
    for (int i = t; i < 8 * 16; i += 32)
        sA[i] = __float2bfloat16_rn((float)A[i]);
    for (int i = t; i < 16 * 32; i += 32)
        sB[i] = __float2bfloat16_rn((float)B[i]);
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, sA, 16);
    wmma::load_matrix_sync(fb, sB, 32);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; ++i)
        fc.x[i] = fc.x[i] * 2.0f;
    wmma::store_matrix_sync(D, fc, 32, wmma::mem_row_major);
}

// tf32 m16n16k8: A 16x8 row-major, B 8x16 column-major, operands rounded by __float_to_tf32.
extern "C" __global__ void wmma_tf32(const float* A, const float* B, float* D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, A, 8);
    wmma::load_matrix_sync(fb, B, 8);
    for (int i = 0; i < fa.num_elements; ++i)
        fa.x[i] = wmma::__float_to_tf32(floorf(fa.x[i] * 16.0f));
    for (int i = 0; i < fb.num_elements; ++i)
        fb.x[i] = wmma::__float_to_tf32(floorf(fb.x[i] * 16.0f));
    wmma::fill_fragment(fc, -1.0f);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D, fc, 16, wmma::mem_row_major);
}

// s8 x s8 and u8 x u8 m16n16k16 -> s32: A row-major, B column-major, C loaded column-major.
extern "C" __global__ void wmma_int8(const signed char* A, const signed char* B, const int* C,
                                     int* D, int* Du)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, A, 16);
    wmma::load_matrix_sync(fb, B, 16);
    wmma::load_matrix_sync(fc, C, 16, wmma::mem_col_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D, fc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> ua;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> ub;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> uc;
    wmma::load_matrix_sync(ua, (const unsigned char*)A, 16);
    wmma::load_matrix_sync(ub, (const unsigned char*)B, 16);
    wmma::fill_fragment(uc, 0);
    wmma::mma_sync(uc, ua, ub, uc);
    wmma::store_matrix_sync(Du, uc, 16, wmma::mem_row_major);
}

// f64 m8n8k4: A 8x4 row-major, B 4x8 row-major, C and D 8x8 row-major.
extern "C" __global__ void wmma_f64(const double* A, const double* B, const double* C, double* D)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, A, 4);
    wmma::load_matrix_sync(fb, B, 8);
    wmma::load_matrix_sync(fc, C, 8, wmma::mem_row_major);
    for (int i = 0; i < fa.num_elements; ++i)
        fa.x[i] = floor(fa.x[i] * 8.0);
    for (int i = 0; i < fb.num_elements; ++i)
        fb.x[i] = floor(fb.x[i] * 8.0);
    for (int i = 0; i < fc.num_elements; ++i)
        fc.x[i] = floor(fc.x[i] * 64.0);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D, fc, 8, wmma::mem_row_major);
}
