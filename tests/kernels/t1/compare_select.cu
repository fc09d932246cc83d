// Comparisons and selects: signed and unsigned integer compares combined with && / || / !, set
// results used as integers, ternary selects; float compares with NaN operands (ordered and
// unordered forms), NaN-aware fminf/fmaxf and float selects.

extern "C" __global__ void cmp_int(const int* a, const int* b, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    int y = (i % 4 == 0) ? x : ((i % 4 == 1) ? x + (x < 0) - (x > 0) : b[i]);
    unsigned ux = x, uy = y;
    int bits = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 |
               (x != y) << 5 | (ux < uy) << 6 | (ux <= uy) << 7 | (ux > uy) << 8 |
               (ux >= uy) << 9 | ((x < y) && (ux < uy)) << 10 | ((x < 0) || (y < 0)) << 11 |
               (!(x & 1)) << 12 | ((x ^ y) < 0) << 13 | (x < 1000) << 14 | (ux > 7u) << 15;
    int* o = out + i;
    o[0 * n] = bits;
    o[1 * n] = x == y ? 100 : (x < y ? -1 : 1);
    o[2 * n] = (int)((ux >= 0x80000000u) ? ux >> 1 : ux << 1);
    o[3 * n] = (x > 0) + (y > 0) + (x > y);
    o[4 * n] = (x < y) ? (x ^ y) : (x & y);
    o[5 * n] = (x > -5 && x < 5) || (y & 0xff) == 0x7f ? 1 : 0;
    o[6 * n] = -(x > y);
}

extern "C" __global__ void cmp_float(const float* a, const float* b, int* out, float* fout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float nan = __int_as_float(0x7fc00000);
    float x = (i % 7 == 3) ? nan : a[i];
    float y = (i % 5 == 1) ? x : ((i % 11 == 2) ? nan : b[i]);
    int bits = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 |
               (x != y) << 5 | !(x < y) << 6 | !(x >= y) << 7 | (x != x) << 8 |
               ((x < y) || (y != y)) << 9 | (x > 0.5f) << 10 | (y <= -0.25f) << 11;
    out[i] = bits;
    float* o = fout + i;
    o[0 * n] = x < y ? x : y;
    o[1 * n] = fminf(x, y);
    o[2 * n] = fmaxf(x, y);
    o[3 * n] = (x > 0.0f) ? x : -x;
    o[4 * n] = (x != x) ? 0.0f : x;
    o[5 * n] = !(x <= y) ? 1.0f : 2.0f;
}
