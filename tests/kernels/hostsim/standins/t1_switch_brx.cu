// hostsim stand-in for t1/switch_brx.cu: the PTX jump table written as the equivalent C switch.
// Keep the cases in step with the .branchtargets blocks of the original.

__device__ __forceinline__ unsigned jump8(unsigned sel, unsigned x)
{
    switch (sel & 7u) {
    case 0: return x + 1u;                 // L0: add.u32 r, x, 1
    case 1: return x * 3u;                 // L1: mul.lo.u32 r, x, 3
    case 2: return x ^ 0x55aa55aau;        // L2: xor.b32 r, x, 0x55aa55aa
    case 3: return x >> 2;                 // L3: shr.u32 r, x, 2
    case 4: return ~x;                     // L4: not.b32 r, x
    case 5: return x << 5;                 // L5: shl.b32 r, x, 5
    case 6: return 1000u - x;              // L6: sub.u32 r, 1000, x
    default: return __brev(x);             // L7: brev.b32 r, x
    }
}

extern "C" __global__ void switch_brx(const unsigned* a, unsigned* out, int rounds, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], sel = x;
#pragma unroll 1
    for (int k = 0; k < rounds; ++k) {
        x = jump8(sel, x) + (unsigned)k;
        sel = (sel >> 3) ^ x;
    }
    out[i] = x;
}
