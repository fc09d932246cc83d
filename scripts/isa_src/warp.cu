// Warp-level ops, control flow, calls, barriers, special registers.
#include <cooperative_groups.h>
extern "C" __global__ void warp_ops(int *o, const int *a, float *f, int n) {
    int i = threadIdx.x;
    int x = a[i];
    int r = __shfl_sync(0xffffffff, x, 3) + __shfl_up_sync(0xffffffff, x, 1) + __shfl_down_sync(0xffffffff, x, n) + __shfl_xor_sync(0xffffffff, x, 16);
    r += __shfl_sync(0x0000ffff, x, n, 16);
    float fv = __shfl_xor_sync(0xffffffff, f[i], 8);
    r += __all_sync(0xffffffff, x > 0) + __any_sync(0xffffffff, x < n) + __popc(__ballot_sync(0xffffffff, x & 1));
    r += __match_any_sync(0xffffffff, x) + __activemask();
    int pred;
    r += __match_all_sync(0xffffffff, x, &pred);
    r += __reduce_add_sync(0xffffffff, x) + __reduce_min_sync(0xffffffff, x) + (int)__reduce_or_sync(0xffffffff, (unsigned)x);
    r += __reduce_max_sync(0xffffffff, (unsigned)x) + __reduce_xor_sync(0xffffffff, (unsigned)x);
    __syncwarp();
    o[i] = r + (int)fv;
}
extern "C" __global__ void sregs(unsigned *o, int n) {
    unsigned lane, warp, sm, gridid, nsm;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm("mov.u32 %0, %%smid;" : "=r"(sm));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    asm("mov.u32 %0, %%gridid;" : "=r"(gridid));
    unsigned long long clk = clock64();
    unsigned c32 = clock();
    unsigned long long gt;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
    unsigned lm;
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(lm));
    unsigned d0;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(d0));
    unsigned t = threadIdx.x + threadIdx.y * 3 + threadIdx.z * 5 + blockIdx.y * 7 + blockIdx.z + blockDim.y + blockDim.z + gridDim.x + gridDim.y * 11 + gridDim.z;
    o[threadIdx.x] = lane + warp + sm + nsm + gridid + (unsigned)clk + c32 + (unsigned)gt + lm + t + d0;
}
__device__ __noinline__ float helper(float x, int k) {
    float r = x;
    for (int j = 0; j < k; ++j) r = r * 1.5f + j;
    return r;
}
__device__ __noinline__ void helper2(int *p, int v) { p[v & 15] += v; }
extern "C" __global__ void calls(float *o, int *p, int n) {
    int i = threadIdx.x;
    o[i] = helper(o[i], n) + helper(o[i + 32], i);
    helper2(p, i);
    if (i == 0) printf("n=%d %f\n", n, o[0]);
}
extern "C" __global__ void control(int *o, const int *a, int n) {
    int i = threadIdx.x;
    int acc = 0;
    for (int j = 0; j < n; ++j) {
        if (a[j] > i) acc += a[j];
        else if (a[j] == 3) { acc ^= j; continue; }
        if (acc > 1000) break;
    }
    switch (a[i] & 7) {
    case 0: acc += 1; break;
    case 1: acc *= 3; break;
    case 2: acc -= 7; break;
    case 3: acc = acc / 5; break;
    case 4: acc <<= 2; break;
    case 5: acc = -acc; break;
    default: acc = 9;
    }
    if (i & 1) { __syncwarp(0x55555555); acc += __shfl_sync(0x55555555, acc, 0); }
    o[i] = acc;
    if (acc == 12345) __trap();
    if (acc == 54321) asm volatile("brkpt;");
    __nanosleep(100);
    __nanosleep(n);
}
extern "C" __global__ void barriers(int *o, int n) {
    __shared__ int s[128];
    int i = threadIdx.x;
    s[i] = i;
    __syncthreads();
    int c = __syncthreads_count(s[(i + 1) & 127] > n);
    int a = __syncthreads_and(s[i] > 0);
    int b = __syncthreads_or(s[i] == n);
    asm volatile("bar.sync 1, 64;");
    asm volatile("bar.arrive 2, 64;");
    asm volatile("barrier.sync.aligned 3;");
    { unsigned q; asm volatile("{.reg .pred p; setp.ne.u32 p, %1, 0; bar.red.popc.u32 %0, 4, p;}" : "=r"(q) : "r"(c)); c += q; }
    o[i] = c + a + b;
}
