// Warp specialisation with register reallocation: warpgroup 0 produces (setmaxnreg.dec to 40
// registers) into a two-stage shared-memory ring guarded by full/empty mbarriers, warpgroup 1
// consumes (setmaxnreg.inc to 232) with 32 live accumulators per thread.
__device__ __forceinline__ unsigned saddr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity)
{
    asm volatile("{ .reg .pred p;\n"
                 "W_%=:\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "  @!p bra W_%=; }"
                 ::"r"(bar), "r"(parity) : "memory");
}

#define STEPS 6

extern "C" __global__ void __launch_bounds__(256, 1) setmaxnreg_ws(const float* in, float* out)
{
    __shared__ float stage[2][128];
    __shared__ __align__(8) unsigned long long full[2], empty[2];
    int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int b = 0; b < 2; ++b) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(saddr(&full[b])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(saddr(&empty[b])));
        }
    }
    __syncthreads();
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        for (int s = 0; s < STEPS; ++s) {
            int b = s & 1;
            if (s >= 2)
                wait_parity(saddr(&empty[b]), ((s - 2) >> 1) & 1);   // slot b consumed
            stage[b][t] = __fmul_rn(in[s * 128 + t], 1.5f);
            arrive(saddr(&full[b]));
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        float acc[32];
#pragma unroll
        for (int k = 0; k < 32; ++k)
            acc[k] = (float)k;
        for (int s = 0; s < STEPS; ++s) {
            int b = s & 1;
            wait_parity(saddr(&full[b]), (s >> 1) & 1);
            float v = stage[b][(t + s) & 127];
#pragma unroll
            for (int k = 0; k < 32; ++k)
                acc[k] = __fmaf_rn(acc[k], 0.5f, __fmul_rn(v, (float)(k + 1)));
            arrive(saddr(&empty[b]));
        }
        float sum = 0.0f;
#pragma unroll
        for (int k = 0; k < 32; ++k)
            sum = __fadd_rn(sum, acc[k]);
        out[t] = sum;
    }
}
