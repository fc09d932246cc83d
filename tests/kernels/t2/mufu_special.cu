// MUFU through the PTX .approx instructions, .ftz and not: special operands (infinities, signed
// zeros, subnormals, NaN, overflow and underflow of ex2, negative operands of rsqrt/sqrt/lg2)
// whose results the PTX ISA tabulates exactly, and random operands within the documented error
// bounds. One thread per special operand (first n_sp threads), every thread one random operand.
#define MUFU_KERNEL(name, ftz_insn, full_insn, XF)                                            \
    extern "C" __global__ void name(const float* sp, const float* x, float* e, float* t,     \
                                    int n_sp, int n)                                         \
    {                                                                                        \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                       \
        if (i < n_sp) {                                                                      \
            float v = sp[i], r1, r2;                                                         \
            asm(ftz_insn " %0, %1;" : "=f"(r1) : "f"(v));                                    \
            asm(full_insn " %0, %1;" : "=f"(r2) : "f"(v));                                   \
            e[i] = r1;                                                                       \
            t[i] = r2;                                                                       \
        }                                                                                    \
        if (i < n) {                                                                         \
            float v = XF(x[i]), r1, r2;                                                      \
            asm(ftz_insn " %0, %1;" : "=f"(r1) : "f"(v));                                    \
            asm(full_insn " %0, %1;" : "=f"(r2) : "f"(v));                                   \
            t[n_sp + i] = r1;                                                                \
            t[n_sp + n + i] = r2;                                                            \
        }                                                                                    \
    }

#define ID(v) (v)
#define ABS(v) fabsf(v)
#define X8(v) __fmul_rn(v, 8.0f)
#define X16(v) __fmul_rn(v, 16.0f)
#define X2(v) __fmul_rn(v, 2.0f)

MUFU_KERNEL(mufu_rcp, "rcp.approx.ftz.f32", "rcp.approx.f32", ID)
MUFU_KERNEL(mufu_rsqrt, "rsqrt.approx.ftz.f32", "rsqrt.approx.f32", ABS)
MUFU_KERNEL(mufu_sqrt, "sqrt.approx.ftz.f32", "sqrt.approx.f32", ABS)
MUFU_KERNEL(mufu_ex2, "ex2.approx.ftz.f32", "ex2.approx.f32", X8)
MUFU_KERNEL(mufu_lg2, "lg2.approx.ftz.f32", "lg2.approx.f32", ABS)
MUFU_KERNEL(mufu_sin, "sin.approx.ftz.f32", "sin.approx.f32", X16)
MUFU_KERNEL(mufu_cos, "cos.approx.ftz.f32", "cos.approx.f32", X16)
MUFU_KERNEL(mufu_tanh, "tanh.approx.f32", "tanh.approx.f32", X2)
