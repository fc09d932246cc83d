// Sparse switch statements: case values spread over the int range (negative, large, INT_MAX,
// INT_MIN) that the compiler must test by comparisons or a search tree; the inputs come from a
// table so that every case and the default are taken; a 64-bit switch as well.

__constant__ int kSparse[12] = {3, 17, 100, 1000, 65536, -5, 2147483647, -2147483647 - 1,
                                4, 99, 1001, -6};

extern "C" __global__ void switch_sparse(const unsigned* sel, const int* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = (sel[i] & 1u) ? kSparse[(sel[i] >> 1) % 12u] : a[i];
    int r;
    switch (x) {
    case 3: r = 30; break;
    case 17: r = x * 2; break;
    case 100: r = -100; break;
    case 1000: r = (int)(sel[i] >> 8); break;
    case 65536: r = 7; break;
    case -5: r = 55; break;
    case 2147483647: r = 1; break;
    case -2147483647 - 1: r = 2; break;
    default: r = x >> 24; break;
    }
    out[i] = r;
}

extern "C" __global__ void switch_sparse64(const unsigned* sel, long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned s = sel[i];
    long long x = (long long)(s % 6u) << (16 * (s % 4u));
    long long r;
    switch (x) {
    case 0: r = -1; break;
    case 1: r = 11; break;
    case 2LL << 16: r = 22; break;
    case 3LL << 32: r = 33; break;
    case 4LL << 48: r = 44; break;
    case 5: r = 55; break;
    default: r = x ^ 0x5555; break;
    }
    out[i] = r;
}
