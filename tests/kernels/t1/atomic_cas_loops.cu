// Lock-free updates built from atomicCAS retry loops: float max via CAS on the bit pattern, an
// argmax packed into 64 bits (value key, then lowest index wins), a multiplicative accumulator
// (commutative, so order-independent), 16-bit CAS on packed counters, and atomicExch used as a
// one-shot "first writer wins" flag whose winner's identity is not recorded.

__device__ float atomic_max_float(float* addr, float v)
{
    int* p = reinterpret_cast<int*>(addr);
    int old = *p;
    while (__int_as_float(old) < v) {
        int assumed = old;
        old = atomicCAS(p, assumed, __float_as_int(v));
        if (old == assumed)
            break;
    }
    return __int_as_float(old);
}

// Order-preserving map of a float to an unsigned key.
__device__ __forceinline__ unsigned float_key(float f)
{
    unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ void atomic_argmax(unsigned long long* addr, float v, unsigned idx)
{
    unsigned long long mine = ((unsigned long long)float_key(v) << 32) | (0xffffffffu - idx);
    unsigned long long old = *addr;
    while (old < mine) {
        unsigned long long assumed = old;
        old = atomicCAS(addr, assumed, mine);
        if (old == assumed)
            break;
    }
}

__device__ void atomic_mul(unsigned* addr, unsigned factor)
{
    unsigned old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, assumed * factor);
    } while (old != assumed);
}

// Adds 1 to the 16-bit counter `which` (0 or 1) of a pair packed in 32 bits, with a 16-bit CAS.
__device__ void atomic_inc16(unsigned short* pair, int which)
{
    unsigned short* p = pair + which;
    unsigned short old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, (unsigned short)(assumed + 1));
    } while (old != assumed);
}

extern "C" __global__ void cas_loops(const float* f, const unsigned* u, float* fmax_out,
                                     unsigned long long* argmax_out, unsigned* prod_out,
                                     unsigned short* pairs, unsigned* flag, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = f[i];
    atomic_max_float(&fmax_out[0], v);
    atomic_max_float(&fmax_out[1 + (i & 1)], -v);
    atomic_argmax(argmax_out, v, (unsigned)i);
    atomic_argmax(argmax_out + 1, (float)(int)(v * 4.0f), (unsigned)i);
    atomic_mul(&prod_out[i & 3], u[i] | 1u);
    atomic_inc16(&pairs[2 * (i % 5)], (u[i] >> 7) & 1);
    atomicExch(flag, 1u);
}
