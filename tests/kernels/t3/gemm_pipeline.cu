// A small tensor-core GEMM as sm_80 kernels write it: C (32x32, f32) = A (32x64) x B (64x32).
// Phase 1 converts the int8 inputs to f16 in global scratch buffers; phase 2 copies them into
// shared memory with cp.async.cg in two commit groups (k < 32, k >= 32); each of 4 warps loads
// fragments with ldmatrix (x4 for A, x4.trans for B) and accumulates a 16x16 block with
// mma.sync m16n8k16, computing on the first half while the second is in flight.
#include <cuda_fp16.h>

#define M 32
#define N 32
#define K 64

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void gemm_pipeline(const signed char* A8, const signed char* B8,
                                         __half* Ah, __half* Bh, float* C)
{
    __shared__ __align__(128) __half sA[M * K];   // row-major [m][k]
    __shared__ __align__(128) __half sB[K * N];   // row-major [k][n]
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (int i = tid; i < M * K; i += blockDim.x) {
        Ah[i] = __int2half_rn(A8[i]);
        Bh[i] = __int2half_rn(B8[i]);
    }
    __syncthreads();   // the block's global writes are visible to its own later reads

    // 16-byte chunks: A rows have 8 chunks (4 per k-half), B rows 4 chunks; 128 threads.
    for (int half = 0; half < 2; ++half) {
        for (int c = tid; c < M * 4; c += blockDim.x) {          // A: 32 rows x 4 chunks
            int row = c / 4, chunk = half * 4 + c % 4;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         ::"r"(saddr(sA + row * K + chunk * 8)), "l"(Ah + row * K + chunk * 8));
        }
        for (int c = tid; c < (K / 2) * 4; c += blockDim.x) {    // B: 32 rows x 4 chunks
            int row = half * (K / 2) + c / 4, chunk = c % 4;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         ::"r"(saddr(sB + row * N + chunk * 8)), "l"(Bh + row * N + chunk * 8));
        }
        asm volatile("cp.async.commit_group;");
    }

    int m0 = 16 * (warp >> 1), n0 = 16 * (warp & 1);
    float acc[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
    for (int ks = 0; ks < K / 16; ++ks) {
        if (ks == 0) {
            asm volatile("cp.async.wait_group 1;");
            __syncthreads();
        } else if (ks == 2) {
            asm volatile("cp.async.wait_group 0;");
            __syncthreads();
        }
        int k0 = 16 * ks;
        unsigned a[4], b[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(saddr(sA + (m0 + (lane & 15)) * K + k0 + (lane >> 4) * 8)));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
                     : "r"(saddr(sB + (k0 + (lane & 15)) * N + n0 + (lane >> 4) * 8)));
        for (int j = 0; j < 2; ++j) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * j]),
                           "r"(b[2 * j + 1]));
        }
    }
    int g = lane >> 2, t = lane & 3;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 4; ++i)
            C[(m0 + g + 8 * (i >> 1)) * N + n0 + 8 * j + 2 * t + (i & 1)] = acc[j][i];
}
