// Warp votes: __ballot_sync, __any_sync, __all_sync and __uni_sync with predicates that are true for
// some, all or none of the lanes; popc of a ballot and lane ranks from ballot & lanemask; votes
// with __activemask() on a partial last warp; and votes inside a divergent branch with the
// matching sub-warp mask.

#define FULL 0xffffffffu

extern "C" __global__ void vote_full(const int* a, unsigned* out)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int N = gridDim.x * blockDim.x;
    unsigned lane = threadIdx.x & 31;
    int x = a[g];
    int warp = threadIdx.x / 32;
    bool p = warp == 0 ? (x > 0) : (warp == 1 ? true : (lane == 7));
    unsigned b = __ballot_sync(FULL, p);
    unsigned* o = out + g;
    o[0 * N] = b;
    o[1 * N] = __any_sync(FULL, x > 2000000000);
    o[2 * N] = __all_sync(FULL, p);
    o[3 * N] = __all_sync(FULL, x != 0);
    o[4 * N] = __uni_sync(FULL, p);
    o[5 * N] = __popc(b);
    o[6 * N] = __popc(b & ((1u << lane) - 1u));
    o[7 * N] = __ballot_sync(FULL, x & 1) ^ __ballot_sync(FULL, lane < 5);
}

extern "C" __global__ void vote_partial(const int* a, unsigned* out)
{
    unsigned m = __activemask();
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int N = gridDim.x * blockDim.x;
    int x = a[g];
    unsigned b = __ballot_sync(m, x < 0);
    unsigned* o = out + g;
    o[0 * N] = m;
    o[1 * N] = b;
    o[2 * N] = __any_sync(m, x == 12345);
    o[3 * N] = __all_sync(m, x > -2147483647 - 1);
    o[4 * N] = __popc(b);
    o[5 * N] = 0xdeadu;
    unsigned lane = threadIdx.x & 31;
    if (lane < 16) {
        o[5 * N] = __ballot_sync(m & 0x0000ffffu, x & 2);
    } else {
        o[5 * N] = __ballot_sync(m & 0xffff0000u, x & 4) | 1u;
    }
}
