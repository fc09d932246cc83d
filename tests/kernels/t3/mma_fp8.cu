// mma.sync with fp8 operands (sm_89: m16n8k32 e4m3 x e4m3 and e4m3 x e5m2, f32 accumulators).
// Fragment layouts from the PTX ISA (g = lane / 4, t = lane % 4); C/D c_i at row g + 8 (i >> 1),
// column 2t + (i & 1).
#define C_ROW(i) (g + 8 * ((i) >> 1))
#define C_COL(i) (2 * t + ((i) & 1))

__device__ __forceinline__ unsigned pack4(const unsigned char* p, int stride)
{
    return (unsigned)p[0] | ((unsigned)p[stride] << 8) | ((unsigned)p[2 * stride] << 16) |
           ((unsigned)p[3 * stride] << 24);
}

// D (16x8) = A (16x32 fp8 codes, row-major) * B (32x8 fp8 codes, [k][n]) + C
#define MMA_FP8(name, atype, btype)                                                           \
    extern "C" __global__ void name(const unsigned char* A, const unsigned char* B,          \
                                    const float* C, float* D)                                \
    {                                                                                        \
        int lane = threadIdx.x, g = lane >> 2, t = lane & 3;                                 \
        unsigned a[4], b[2];                                                                 \
        float c[4], d[4];                                                                    \
        for (int r = 0; r < 4; ++r) {                                                        \
            int row = g + 8 * (r & 1), col = 4 * t + 16 * (r >> 1);                          \
            a[r] = pack4(A + row * 32 + col, 1);                                             \
        }                                                                                    \
        for (int r = 0; r < 2; ++r)                                                          \
            b[r] = pack4(B + (4 * t + 16 * r) * 8 + g, 8);                                   \
        for (int i = 0; i < 4; ++i)                                                          \
            c[i] = C[C_ROW(i) * 8 + C_COL(i)];                                               \
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." atype "." btype ".f32 "        \
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"             \
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                        \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),     \
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));                          \
        for (int i = 0; i < 4; ++i)                                                          \
            D[C_ROW(i) * 8 + C_COL(i)] = d[i];                                               \
    }

MMA_FP8(mma_m16n8k32_e4m3, "e4m3", "e4m3")
MMA_FP8(mma_m16n8k32_e4m3_e5m2, "e4m3", "e5m2")
