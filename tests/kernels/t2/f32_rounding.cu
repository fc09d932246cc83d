// f32 arithmetic in every IEEE rounding mode through the CUDA intrinsics: add, sub, mul, fma,
// div, sqrt and rcp with _rn/_rz/_rd/_ru.
#define ROW(k) out[(k) * n + i]

extern "C" __global__ void f32_rounding(const float* a, const float* b, const float* c,
                                        float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    float p = fabsf(y);
    ROW(0) = __fadd_rn(x, y);  ROW(1) = __fadd_rz(x, y);  ROW(2) = __fadd_rd(x, y);  ROW(3) = __fadd_ru(x, y);
    ROW(4) = __fmul_rn(x, y);  ROW(5) = __fmul_rz(x, y);  ROW(6) = __fmul_rd(x, y);  ROW(7) = __fmul_ru(x, y);
    ROW(8) = __fmaf_rn(x, y, z); ROW(9) = __fmaf_rz(x, y, z); ROW(10) = __fmaf_rd(x, y, z); ROW(11) = __fmaf_ru(x, y, z);
    ROW(12) = __fdiv_rn(x, y); ROW(13) = __fdiv_rz(x, y); ROW(14) = __fdiv_rd(x, y); ROW(15) = __fdiv_ru(x, y);
    ROW(16) = __fsqrt_rn(p);   ROW(17) = __fsqrt_rz(p);   ROW(18) = __fsqrt_rd(p);   ROW(19) = __fsqrt_ru(p);
    ROW(20) = __frcp_rn(z);    ROW(21) = __frcp_rz(z);    ROW(22) = __frcp_rd(z);    ROW(23) = __frcp_ru(z);
    ROW(24) = __fsub_rn(x, z); ROW(25) = __fsub_rz(x, z); ROW(26) = __fsub_rd(x, z); ROW(27) = __fsub_ru(x, z);
    // fma where the product nearly cancels the addend: the rounding happens far below 1 ulp of z
    ROW(28) = __fmaf_rz(x, y, -__fmul_rn(x, y));
    ROW(29) = __fmaf_ru(x, y, -__fmul_rn(x, y));
}
