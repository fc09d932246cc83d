// Atomics whose returned old values hand out unique tickets: each thread takes a ticket from a
// global counter and marks the slot it got (every slot ends up marked once, whatever the order);
// the same with warp-aggregated atomics (one atomicAdd per warp by an elected leader, the base
// broadcast with a shuffle, per-lane offsets from ballot and popc); and per-block tickets from
// atomicInc with a wrap limit on shared memory.

extern "C" __global__ void tickets_simple(unsigned* counter, unsigned* marks, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned t = atomicAdd(counter, 1u);
    atomicAdd(&marks[t], 1u);
}

extern "C" __global__ void tickets_warp_aggregated(unsigned* counter, unsigned* marks,
                                                   unsigned* per_warp)
{
    unsigned lane = threadIdx.x & 31;
    unsigned active = __activemask();
    bool want = ((threadIdx.x * 7u + blockIdx.x) % 3u) != 0;
    unsigned ballot = __ballot_sync(active, want);
    unsigned leader = __ffs(ballot) - 1;
    unsigned base = 0;
    if (want && lane == leader)
        base = atomicAdd(counter, (unsigned)__popc(ballot));
    base = __shfl_sync(active, base, leader);
    if (want) {
        unsigned mine = base + __popc(ballot & ((1u << lane) - 1u));
        atomicAdd(&marks[mine], 1u);
    }
    if (lane == 0)
        per_warp[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = __popc(ballot);
}

extern "C" __global__ void tickets_wrap(unsigned* out)
{
    __shared__ unsigned ctr;
    __shared__ unsigned seen[16];
    int t = threadIdx.x;
    if (t == 0)
        ctr = 0;
    if (t < 16)
        seen[t] = 0;
    __syncthreads();
    unsigned ticket = atomicInc(&ctr, 15u);
    atomicAdd(&seen[ticket], 1u);
    __syncthreads();
    if (t < 16)
        out[16 * blockIdx.x + t] = seen[t];
    if (t == 0)
        out[16 * gridDim.x + blockIdx.x] = ctr;
}
