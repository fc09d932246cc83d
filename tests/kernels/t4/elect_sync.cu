// elect.sync: one leader per warp (full mask) and per subset (a partial mask of every third
// lane); checked are the properties PTX guarantees (exactly one leader, in the mask, the same
// laneid returned to every member, the predicate true only for it); which lane leads is written
// to an unchecked buffer. The leaders also count warps with shared-memory atomics, and
// cooperative_groups::invoke_one runs a lambda once per warp.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned elect(unsigned mask, unsigned* is_leader)
{
    unsigned lane_id, p;
    asm volatile("{ .reg .pred P;\n"
                 "  elect.sync %0|P, %2;\n"
                 "  selp.u32 %1, 1, 0, P; }"
                 : "=r"(lane_id), "=r"(p) : "r"(mask));
    *is_leader = p;
    return lane_id;
}

extern "C" __global__ void elect_sync(unsigned* flags, unsigned* counts, unsigned* leaders)
{
    __shared__ unsigned n_full, n_part, n_once;
    int t = threadIdx.x, lane = t & 31, warp = t >> 5, g = blockIdx.x * 128 + t;
    if (t == 0)
        n_full = n_part = n_once = 0;
    __syncthreads();

    unsigned p;
    unsigned leader = elect(0xffffffffu, &p);
    unsigned votes = __ballot_sync(0xffffffffu, p);
    unsigned same = __all_sync(0xffffffffu, __shfl_sync(0xffffffffu, leader, 0) == leader);
    unsigned f = (unsigned)(p == (unsigned)(lane == (int)leader)) |
                 ((unsigned)(votes == (1u << leader)) << 1) | (same << 2) |
                 ((unsigned)(leader < 32) << 3);
    if (p)
        atomicAdd(&n_full, 1u);
    leaders[g] = leader;

    const unsigned part = 0x49249249u;                // lanes 0, 3, 6, ..., 30
    unsigned pl = 0, lp = 0;
    if ((part >> lane) & 1u) {
        lp = elect(part, &pl);
        unsigned v2 = __ballot_sync(part, pl);
        f |= ((unsigned)((part >> lp) & 1u) << 4) | ((unsigned)(v2 == (1u << lp)) << 5) |
             ((unsigned)(pl == (unsigned)(lane == (int)lp)) << 6);
        if (pl)
            atomicAdd(&n_part, 1u);
        leaders[256 + g] = lp;
    } else {
        f |= 0x70u;
        leaders[256 + g] = 32;
    }
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    cg::invoke_one(tile, [&] { atomicAdd(&n_once, 1u); });
    flags[g] = f;
    __syncthreads();
    if (t == 0) {
        counts[4 * blockIdx.x + 0] = n_full;
        counts[4 * blockIdx.x + 1] = n_part;
        counts[4 * blockIdx.x + 2] = n_once;
        counts[4 * blockIdx.x + 3] = (unsigned)warp;
    }
}
