// Integer hash and random-number mixers with wrap-around multiplies, xor-shifts and rotates:
// MurmurHash3's 32/64-bit finalisers, splitmix64, xorshift64*, one PCG32 step (64-bit LCG then a
// data-dependent rotate), FNV-1a over the bytes of a word, and Jenkins' one-at-a-time hash.

__device__ __forceinline__ unsigned fmix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

__device__ __forceinline__ unsigned long long fmix64(unsigned long long k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__device__ __forceinline__ unsigned long long xorshift64s(unsigned long long x)
{
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 0x2545f4914f6cdd1dull;
}

__device__ __forceinline__ unsigned pcg32(unsigned long long& state, unsigned long long inc)
{
    unsigned long long old = state;
    state = old * 6364136223846793005ull + (inc | 1ull);
    unsigned xorshifted = (unsigned)(((old >> 18) ^ old) >> 27);
    unsigned rot = (unsigned)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((0u - rot) & 31u));
}

extern "C" __global__ void hash_mix(const unsigned* a, const unsigned long long* b,
                                    unsigned* out32, unsigned long long* out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i];
    unsigned long long y = b[i];
    unsigned fnv = 2166136261u;
#pragma unroll
    for (int k = 0; k < 4; ++k)
        fnv = (fnv ^ ((x >> (8 * k)) & 0xffu)) * 16777619u;
    unsigned oaat = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        oaat += (x >> (8 * k)) & 0xffu;
        oaat += oaat << 10;
        oaat ^= oaat >> 6;
    }
    oaat += oaat << 3;
    oaat ^= oaat >> 11;
    oaat += oaat << 15;
    unsigned long long st = y;
    unsigned r0 = pcg32(st, (unsigned long long)i);
    unsigned r1 = pcg32(st, (unsigned long long)i);
    unsigned* o = out32 + 5 * i;
    o[0] = fmix32(x);
    o[1] = fnv;
    o[2] = oaat;
    o[3] = r0;
    o[4] = r1;
    unsigned long long* p = out64 + 4 * i;
    p[0] = fmix64(y);
    p[1] = splitmix64(y);
    p[2] = xorshift64s(y | 1ull);
    p[3] = st;
}
