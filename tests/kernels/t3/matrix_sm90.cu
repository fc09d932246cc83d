// sm_90 warp matrix forms: mma.sync f64 m16n8k8 and m16n8k16 (DMMA), and stmatrix (x1, x2, x4,
// with and without .trans), the store counterpart of ldmatrix: thread r of each 8-thread group
// names row r of one 8x8 b16 matrix; lane l holds elements (l / 4, 2 (l % 4)) and (.., + 1) of
// each matrix in one register (.trans: the transposed matrix is stored).
#define C_ROW(i) (g + 8 * ((i) >> 1))
#define C_COL(i) (2 * t + ((i) & 1))

// D (16x8) = A (16xK) * B (Kx8, [k][n]) + C, K = 8: a_j at row g + 8 (j & 1), column t + 4 (j >> 1);
// b_j at k = t + 4j, n = g. K = 16 continues the pattern (a_0 .. a_7, b_0 .. b_3).
#define MMA_F64(name, K, NA, NB, shape)                                                       \
    extern "C" __global__ void name(const double* A, const double* B, const double* C,       \
                                    double* D)                                               \
    {                                                                                        \
        int lane = threadIdx.x, g = lane >> 2, t = lane & 3;                                 \
        double a[NA], b[NB], c[4], d[4];                                                     \
        for (int j = 0; j < NA; ++j)                                                         \
            a[j] = A[(g + 8 * (j & 1)) * K + t + 4 * (j >> 1)];                              \
        for (int j = 0; j < NB; ++j)                                                         \
            b[j] = B[(t + 4 * j) * 8 + g];                                                   \
        for (int i = 0; i < 4; ++i)                                                          \
            c[i] = C[C_ROW(i) * 8 + C_COL(i)];                                               \
        shape;                                                                               \
        for (int i = 0; i < 4; ++i)                                                          \
            D[C_ROW(i) * 8 + C_COL(i)] = d[i];                                               \
    }

MMA_F64(mma_m16n8k8_f64, 8, 4, 2,
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]),
                       "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3])))

MMA_F64(mma_m16n8k16_f64, 16, 8, 4,
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
                     "{%16,%17,%18,%19};"
                     : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]),
                       "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]),
                       "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3])))

// Each lane holds register j = in[j * 32 + lane] (j < 4); matrix j goes to shared rows
// 8j .. 8j + 7 (16 halves of padding between rows). Output: the shared area after each store.
extern "C" __global__ void stmatrix(const unsigned* in, unsigned short* out)
{
    __shared__ __align__(16) unsigned short s[6][32 * 24];
    int lane = threadIdx.x;
    for (int k = 0; k < 6; ++k)
        for (int i = lane; i < 32 * 24; i += 32)
            s[k][i] = 0xffff;
    __syncwarp();
    unsigned r0 = in[lane], r1 = in[32 + lane], r2 = in[64 + lane], r3 = in[96 + lane];
    // lane l gives the address of row l % 8 of matrix l / 8 (x1: lanes 0-7, x2: 0-15)
    int row = 8 * (lane >> 3) + (lane & 7);
    unsigned a[6];
    for (int k = 0; k < 6; ++k)
        a[k] = (unsigned)__cvta_generic_to_shared(&s[k][row * 24]);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(a[0]), "r"(r0));
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};"
                 ::"r"(a[1]), "r"(r0), "r"(r1));
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                 ::"r"(a[2]), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(a[3]), "r"(r0));
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};"
                 ::"r"(a[4]), "r"(r0), "r"(r1));
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};"
                 ::"r"(a[5]), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
    __syncwarp();
    for (int k = 0; k < 6; ++k)
        for (int i = lane; i < 32 * 24; i += 32)
            out[k * 32 * 24 + i] = s[k][i];
}
