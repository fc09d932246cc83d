// match.sync via __match_any_sync / __match_all_sync on 32- and 64-bit integers and on floats
// and doubles, with full and partial masks (the result lists only lanes inside the mask).
extern "C" __global__ void match_sync(const unsigned* in, const long long* lin, unsigned* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned v = in[t] % 5u;                       // five groups
    long long lv = lin[t] & 0x300000003LL;         // groups differing in either 32-bit half
    unsigned* o = out + t * 10;
    int pred = -1;
    o[0] = __match_any_sync(0xffffffffu, v);
    o[1] = __match_any_sync(0xffffffffu, lv);
    o[2] = __match_any_sync(0xffffffffu, (float)(v & 1u) * 0.5f);
    o[3] = __match_any_sync(0xffffffffu, (double)(lane / 8));
    o[4] = __match_all_sync(0xffffffffu, v, &pred);
    o[5] = (unsigned)pred;
    o[6] = __match_all_sync(0xffffffffu, (unsigned)(lane >= 0), &pred);   // all equal
    o[7] = (unsigned)pred;
    if (lane < 12) {
        o[8] = __match_any_sync(0x00000fffu, v);
        o[9] = __match_all_sync(0x00000fffu, lv >> 32, &pred) | ((unsigned)pred << 31);
    } else {
        o[8] = __match_any_sync(0xfffff000u, (unsigned long long)lv);
        o[9] = __match_all_sync(0xfffff000u, (int)(lane / 32), &pred) ^ (unsigned)pred;
    }
}
