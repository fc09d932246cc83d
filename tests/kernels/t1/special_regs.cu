// Special registers: threadIdx/blockIdx/blockDim/gridDim in x, y and z with a 3D grid of 3D blocks;
// %laneid and the %lanemask_* registers through inline PTX, warpSize, and __activemask() at kernel
// entry (all threads of a warp converged, the last warp partial). %warpid, %nwarpid and %smid are
// hardware-dependent: they are written to a buffer that is not compared.

extern "C" __global__ void sregs_3d(unsigned* out)
{
    unsigned lt = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned lb = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned g = lb * (blockDim.x * blockDim.y * blockDim.z) + lt;
    unsigned* o = out + 12 * g;
    o[0] = threadIdx.x;
    o[1] = threadIdx.y;
    o[2] = threadIdx.z;
    o[3] = blockIdx.x;
    o[4] = blockIdx.y;
    o[5] = blockIdx.z;
    o[6] = blockDim.x;
    o[7] = blockDim.y;
    o[8] = blockDim.z;
    o[9] = gridDim.x;
    o[10] = gridDim.y;
    o[11] = gridDim.z;
}

__device__ __forceinline__ unsigned sreg_laneid()
{
    unsigned r;
    asm("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

extern "C" __global__ void sregs_lane(unsigned* out, unsigned* hw)
{
    unsigned active = __activemask();
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned eq, lt, le, gt, ge, wid, nwid, smid;
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(wid));
    asm("mov.u32 %0, %%nwarpid;" : "=r"(nwid));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    unsigned* o = out + 8 * g;
    o[0] = sreg_laneid();
    o[1] = eq;
    o[2] = lt;
    o[3] = le;
    o[4] = gt;
    o[5] = ge;
    o[6] = active;
    o[7] = warpSize;
    hw[3 * g + 0] = wid;
    hw[3 * g + 1] = nwid;
    hw[3 * g + 2] = smid;
}
