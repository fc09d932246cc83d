// Order-preserving stream compaction within a block: each warp ballots its predicate, lanes find
// their rank with popc(ballot & lanemask_lt), warp counts are scanned through shared memory, and
// the kept elements are written densely in their original order, with the block's count.

#define FULL 0xffffffffu

extern "C" __global__ void compact_block(const int* in, int* out, int* counts, int threshold)
{
    __shared__ int warp_base[33];
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    int lane = t & 31, warp = t >> 5, nwarps = blockDim.x >> 5;
    int v = in[g];
    bool keep = v > threshold;
    unsigned b = __ballot_sync(FULL, keep);
    unsigned lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    int rank = __popc(b & lt);
    if (lane == 0)
        warp_base[warp + 1] = __popc(b);
    __syncthreads();
    if (t == 0) {
        warp_base[0] = 0;
        for (int w = 1; w <= nwarps; ++w)
            warp_base[w] += warp_base[w - 1];
        counts[blockIdx.x] = warp_base[nwarps];
    }
    __syncthreads();
    if (keep)
        out[blockIdx.x * blockDim.x + warp_base[warp] + rank] = v;
}
