// Block barriers: __syncthreads_count/_and/_or with predicates that are true for some, all or no
// threads, and a multi-round exchange through two shared buffers (ping-pong) where every round
// reads neighbours written in the previous round.

extern "C" __global__ void sync_reduce_preds(const int* a, int* out)
{
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    int x = a[g];
    int cnt = __syncthreads_count(x > 0);
    int all_nz = __syncthreads_and(x != 0);
    int all_odd = __syncthreads_and(x & 1);
    int any_big = __syncthreads_or(x > 2000000000);
    int any_t = __syncthreads_or(t == (int)blockDim.x - 1);
    int none = __syncthreads_or(0);
    out[g] = cnt * 32 + all_nz * 16 + all_odd * 8 + any_big * 4 + any_t * 2 + none;
}

extern "C" __global__ void sync_pingpong(const unsigned* a, unsigned* out)
{
    __shared__ unsigned buf[2][160];
    int t = threadIdx.x, n = blockDim.x;
    buf[0][t] = a[blockIdx.x * n + t];
    __syncthreads();
    int cur = 0;
    for (int round = 0; round < 6; ++round) {
        unsigned l = buf[cur][(t + n - 1) % n], r = buf[cur][(t + 1) % n], c = buf[cur][t];
        buf[cur ^ 1][t] = (l ^ (r << 1)) + c * 3u + (unsigned)round;
        __syncthreads();
        cur ^= 1;
    }
    out[blockIdx.x * n + t] = buf[cur][t];
}
