// sm_90a only: setmaxnreg (REG_RECONFIG), wgmma fence.
extern "C" {
__global__ void __launch_bounds__(384) setmaxnreg_kernel(int *out) {
    if (threadIdx.x < 128) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        out[threadIdx.x] = 1;
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        out[threadIdx.x] = 2;
    }
}
__global__ void wgmma_fence_kernel(float *out) {
    asm volatile("wgmma.fence.sync.aligned;");
    asm volatile("wgmma.commit_group.sync.aligned;");
    asm volatile("wgmma.wait_group.sync.aligned 0;");
    out[threadIdx.x] = 1.0f;
}
}
