// 32-bit integer atomics on global memory whose final values do not depend on the order of the
// operations: add, sub, signed and unsigned min/max, and, or, xor, inc/dec with wrap limits, exch
// of one value per slot, contended adds over 16 addresses, and atomicCAS/atomicAdd on per-thread
// addresses whose returned old values are deterministic too.

extern "C" __global__ void atom_global_i32(const int* a, int* acc, unsigned* uacc, int* slots,
                                           unsigned* own, unsigned* old_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    unsigned ux = (unsigned)x;
    atomicAdd(&acc[0], x >> 10);
    atomicSub(&acc[1], x >> 10);
    atomicMin(&acc[2], x);
    atomicMax(&acc[3], x);
    atomicAdd(&acc[4], 1);
    atomicMin(&uacc[0], ux);
    atomicMax(&uacc[1], ux);
    atomicAnd(&uacc[2], ux | 0x80000001u);
    atomicOr(&uacc[3], ux & 0x0f0f0f0fu);
    atomicXor(&uacc[4], ux);
    atomicInc(&uacc[5], 100u);
    atomicDec(&uacc[6], 37u);
    atomicAdd(&uacc[7], ux);
    atomicExch(&uacc[8 + (i & 7)], 0xABCD0000u | (unsigned)(i & 7));
    atomicAdd(&slots[i % 16], (x >> 16) | 1);
    old_out[2 * i] = atomicCAS(&own[i], (unsigned)i, ux);
    old_out[2 * i + 1] = atomicAdd(&own[n + i], 5u);
}
