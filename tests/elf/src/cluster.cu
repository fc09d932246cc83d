// Clusters and distributed shared memory (sm_90+).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" {
__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(int *out) {
    __shared__ int s[32];
    cg::cluster_group cl = cg::this_cluster();
    s[threadIdx.x] = threadIdx.x + cl.block_rank();
    cl.sync();
    int *peer = cl.map_shared_rank(s, (cl.block_rank() + 1) % 2);
    out[blockIdx.x * 32 + threadIdx.x] = peer[threadIdx.x];
    cl.sync();
}
__global__ void __launch_bounds__(128, 1, 4) max_cluster(int *out) {
    out[threadIdx.x] = threadIdx.x;
}
}
