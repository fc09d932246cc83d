// Warp reductions with redux.sync (__reduce_*_sync): add/min/max on unsigned and signed values,
// and/or/xor, over the full warp, over a partial mask inside a divergent branch, and over the
// odd lanes only.
extern "C" __global__ void redux_sync(const unsigned* uin, const int* sin, unsigned* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned u = uin[t];
    int s = sin[t];
    unsigned* o = out + t * 12;
    o[0] = __reduce_add_sync(0xffffffffu, u);
    o[1] = __reduce_min_sync(0xffffffffu, u);
    o[2] = __reduce_max_sync(0xffffffffu, u);
    o[3] = (unsigned)__reduce_min_sync(0xffffffffu, s);
    o[4] = (unsigned)__reduce_max_sync(0xffffffffu, s);
    o[5] = __reduce_and_sync(0xffffffffu, u | 0x0f0f0000u);
    o[6] = __reduce_or_sync(0xffffffffu, u & 0x00ff00ffu);
    o[7] = __reduce_xor_sync(0xffffffffu, u);
    if (lane < 20) {                               // divergent: the low 20 lanes only
        o[8] = __reduce_add_sync(0x000fffffu, (unsigned)s);
        o[9] = (unsigned)__reduce_max_sync(0x000fffffu, s);
    } else {
        o[8] = 0xdeadbeefu;
        o[9] = (unsigned)__reduce_min_sync(0xfff00000u, s);
    }
    if (lane & 1) {
        o[10] = __reduce_xor_sync(0xaaaaaaaau, u >> (lane & 7));
        o[11] = __reduce_min_sync(0xaaaaaaaau, u);
    } else {
        o[10] = __reduce_or_sync(0x55555555u, (unsigned)lane << (lane & 15));
        o[11] = __reduce_add_sync(0x55555555u, (unsigned)lane * 1000u);
    }
}
