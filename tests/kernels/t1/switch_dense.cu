// Dense switch statements: eight cases covering x & 7 with different operations, a switch with
// fall-through chains and shared case labels, and a 16-case switch whose cases store to different
// places (so it cannot become a lookup table) with a default for out-of-range values.

extern "C" __global__ void switch_dense(const unsigned* a, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], r;
    switch (x & 7u) {
    case 0: r = x + 1u; break;
    case 1: r = x * 3u; break;
    case 2: r = x ^ 0xdeadbeefu; break;
    case 3: r = x >> 5; break;
    case 4: r = (unsigned)__popc(x); break;
    case 5: r = ~x; break;
    case 6: r = (x << 2) | 1u; break;
    default: r = __brev(x); break;
    }
    out[i] = r;
}

extern "C" __global__ void switch_fallthrough(const int* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = a[i] % 10;
    int r = 0;
    switch (k) {
    case 0: r += 1; [[fallthrough]];
    case 1: r += 10; [[fallthrough]];
    case 2: r += 100; break;
    case 3:
    case 4: r = -k; break;
    case 5: r = k * k; [[fallthrough]];
    default: r += 1000; break;
    }
    out[i] = r;
}

extern "C" __global__ void switch_stores(const unsigned* a, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i];
    unsigned* o = out + 4 * i;
    switch (x % 20u) {
    case 0: o[0] = x; break;
    case 1: o[1] = x + 1u; break;
    case 2: o[2] = x * 5u; break;
    case 3: o[3] = x >> 3; break;
    case 4: o[0] = x ^ 4u; o[1] = 4u; break;
    case 5: o[1] = x | 5u; o[2] = 5u; break;
    case 6: o[2] = x & 0xffu; o[3] = 6u; break;
    case 7: o[3] = x - 7u; o[0] = 7u; break;
    case 8: o[0] = x << 8; break;
    case 9: o[1] = (unsigned)__clz(x); break;
    case 10: o[2] = x * x; break;
    case 11: o[3] = x / 11u; break;
    case 12: o[0] = o[1] = x; break;
    case 13: o[2] = o[3] = ~x; break;
    case 14: o[1] = x >> 14; o[3] = x << 14; break;
    case 15: o[0] = 15u; o[2] = x + 15u; break;
    default: o[0] = o[1] = o[2] = o[3] = 0xffffffffu; break;
    }
}
