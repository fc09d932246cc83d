import numpy as np

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def fmix32(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


def fmix64(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    return k ^ (k >> 33)


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def xorshift64s(x):
    x ^= x >> 12
    x ^= (x << 25) & M64
    x ^= x >> 27
    return (x * 0x2545F4914F6CDD1D) & M64


def pcg32(state, inc):
    old = state
    state = (old * 6364136223846793005 + (inc | 1)) & M64
    xs = (((old >> 18) ^ old) >> 27) & M32
    rot = old >> 59
    return state, ((xs >> rot) | (xs << ((-rot) & 31))) & M32


def hash_mix(args, spec):
    a, b, out32, out64, n = args
    n = int(n[0])
    r32, r64 = out32.copy(), out64.copy()
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        fnv = 2166136261
        for k in range(4):
            fnv = ((fnv ^ ((x >> (8 * k)) & 0xFF)) * 16777619) & M32
        h = 0
        for k in range(4):
            h = (h + ((x >> (8 * k)) & 0xFF)) & M32
            h = (h + (h << 10)) & M32
            h ^= h >> 6
        h = (h + (h << 3)) & M32
        h ^= h >> 11
        h = (h + (h << 15)) & M32
        st, r0 = pcg32(y, i)
        st, r1 = pcg32(st, i)
        r32[5 * i : 5 * i + 5] = [fmix32(x), fnv, h, r0, r1]
        r64[4 * i : 4 * i + 4] = [fmix64(y), splitmix64(y), xorshift64s(y | 1), st]
    return {2: r32, 3: r64}
