// f64 arithmetic in every IEEE rounding mode through the CUDA intrinsics: add, mul, fma, div,
// sqrt and rcp with _rn/_rz/_rd/_ru (div/sqrt/rcp expand to Newton sequences with fix-ups).
#define ROW(k) out[(k) * n + i]

extern "C" __global__ void f64_rounding(const double* a, const double* b, const double* c,
                                        double* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i], z = c[i];
    double p = fabs(y);
    ROW(0) = __dadd_rn(x, y);  ROW(1) = __dadd_rz(x, y);  ROW(2) = __dadd_rd(x, y);  ROW(3) = __dadd_ru(x, y);
    ROW(4) = __dmul_rn(x, y);  ROW(5) = __dmul_rz(x, y);  ROW(6) = __dmul_rd(x, y);  ROW(7) = __dmul_ru(x, y);
    ROW(8) = __fma_rn(x, y, z); ROW(9) = __fma_rz(x, y, z); ROW(10) = __fma_rd(x, y, z); ROW(11) = __fma_ru(x, y, z);
    ROW(12) = __ddiv_rn(x, y); ROW(13) = __ddiv_rz(x, y); ROW(14) = __ddiv_rd(x, y); ROW(15) = __ddiv_ru(x, y);
    ROW(16) = __dsqrt_rn(p);   ROW(17) = __dsqrt_rz(p);   ROW(18) = __dsqrt_rd(p);   ROW(19) = __dsqrt_ru(p);
    ROW(20) = __drcp_rn(z);    ROW(21) = __drcp_rz(z);    ROW(22) = __drcp_rd(z);    ROW(23) = __drcp_ru(z);
    ROW(24) = __dsub_rn(x, z); ROW(25) = __dsub_rz(x, z); ROW(26) = __dsub_rd(x, z); ROW(27) = __dsub_ru(x, z);
}
