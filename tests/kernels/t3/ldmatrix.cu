// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16 via inline PTX: four 8x8 b16
// matrices in shared memory whose rows sit at scattered 16-byte aligned addresses, each lane
// supplying one row address (lanes 0-7 matrix 0, 8-15 matrix 1, ...). Lane l receives elements
// (l / 4, 2 (l % 4) + {0, 1}) of each matrix, or of its transpose with .trans.
#define STRIDE 16   // b16 elements per shared-memory line (32 bytes)

__device__ __forceinline__ unsigned row_addr(const unsigned short* base, int m, int r)
{
    // row r of matrix m: line m*8 + (3r mod 8), at element offset 8 when r is odd
    const unsigned short* p = base + (m * 8 + ((r * 3) & 7)) * STRIDE + ((r & 1) ? 8 : 0);
    return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void ldmatrix(const unsigned short* in, unsigned* out)
{
    __shared__ __align__(16) unsigned short sm[32 * STRIDE];
    int lane = threadIdx.x;
    for (int i = lane; i < 32 * STRIDE; i += 32)
        sm[i] = in[i];
    __syncwarp();
    unsigned a = row_addr(sm, lane / 8, lane % 8);
    unsigned r0, r1, r2, r3;
    int o = 0;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
    out[o++ * 32 + lane] = r0;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
    out[o++ * 32 + lane] = r0;
    out[o++ * 32 + lane] = r1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
    out[o++ * 32 + lane] = r0;
    out[o++ * 32 + lane] = r1;
    out[o++ * 32 + lane] = r2;
    out[o++ * 32 + lane] = r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
    out[o++ * 32 + lane] = r0;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r0), "=r"(r1) : "r"(a));
    out[o++ * 32 + lane] = r0;
    out[o++ * 32 + lane] = r1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
    out[o++ * 32 + lane] = r0;
    out[o++ * 32 + lane] = r1;
    out[o++ * 32 + lane] = r2;
    out[o++ * 32 + lane] = r3;
}

// ldmatrix feeding mma.sync: A (16x16 f16, row-major in shared memory) through x4, B (16x8,
// stored row-major as [k][n]) through x2.trans, as GEMM kernels do.
extern "C" __global__ void ldmatrix_mma(const unsigned short* A, const unsigned short* B,
                                        float* D)
{
    __shared__ __align__(16) unsigned short sA[16 * 16];
    __shared__ __align__(16) unsigned short sB[16 * 8];
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    for (int i = lane; i < 256; i += 32)
        sA[i] = A[i];
    for (int i = lane; i < 128; i += 32)
        sB[i] = B[i];
    __syncwarp();
    // x4: lanes 0-15 give rows 0-15 at column 0 (a0a1, a2a3), lanes 16-31 rows 0-15 at column 8
    unsigned pa = (unsigned)__cvta_generic_to_shared(sA + (lane % 16) * 16 + (lane / 16) * 8);
    // x2.trans: lanes 0-15 give rows k = 0-15 of B
    unsigned pb = (unsigned)__cvta_generic_to_shared(sB + (lane % 16) * 8);
    unsigned a0, a1, a2, a3, b0, b1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(pb));
    float d0, d1, d2, d3, z = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(z));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
}
