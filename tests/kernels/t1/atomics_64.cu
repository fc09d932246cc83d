// 64-bit atomics on global memory: add (unsigned long long), signed and unsigned min/max, and/or/xor,
// exch of one value per slot, and CAS on per-thread addresses; results are order-independent.

extern "C" __global__ void atom_global_64(const long long* a, unsigned long long* uacc,
                                          long long* sacc, unsigned long long* own,
                                          unsigned long long* old_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    long long x = a[i];
    unsigned long long ux = (unsigned long long)x;
    atomicAdd(&uacc[0], ux);
    atomicAdd(&uacc[1], 1ull);
    atomicMin(&uacc[2], ux);
    atomicMax(&uacc[3], ux);
    atomicAnd(&uacc[4], ux | 0x8000000000000001ull);
    atomicOr(&uacc[5], ux & 0x00ff00ff00ff00ffull);
    atomicXor(&uacc[6], ux);
    atomicExch(&uacc[7 + (i & 3)], 0x1234567800000000ull + (unsigned long long)(i & 3));
    atomicMin(&sacc[0], x);
    atomicMax(&sacc[1], x);
    atomicAdd(reinterpret_cast<unsigned long long*>(&sacc[2 + (i & 1)]), (unsigned long long)(x >> 20));
    old_out[i] = atomicCAS(&own[i], (unsigned long long)i * 3ull, ux);
}
