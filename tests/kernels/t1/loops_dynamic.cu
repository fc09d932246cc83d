// Loops whose trip counts are unknown at compile time: per-thread counts from data (lanes leave the
// loop at different iterations), a uniform count from a parameter, a data-dependent while loop
// (Collatz steps), a do-while, break and continue inside a loop, and a linear search with an early
// exit.

extern "C" __global__ void loop_data_count(const unsigned* cnt, const int* vals, unsigned* out,
                                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned c = cnt[i] % 50u;
    unsigned s = 0;
    for (unsigned k = 0; k < c; ++k)
        s += (unsigned)(vals[(i + k) % n] >> 4);
    out[i] = s;
}

extern "C" __global__ void loop_param_count(const float* a, float* out, int m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = a[i];
    for (int k = 0; k < m; ++k)
        acc = __fmaf_rn(acc, 0.75f, a[(i + k) & 255]);
    out[i] = acc;
}

extern "C" __global__ void collatz(const unsigned* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i] % 1000u + 1u;
    int steps = 0;
    while (x != 1u && steps < 500) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        ++steps;
    }
    out[i] = steps;
}

extern "C" __global__ void lcg_do_while(const unsigned* a, int* out, unsigned* last, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i];
    int k = 0;
    do {
        x = x * 1103515245u + 12345u;
        ++k;
    } while ((x >> 28) != 0xFu && k < 100);
    out[i] = k;
    last[i] = x;
}

extern "C" __global__ void break_continue(const int* data, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int s = 0, taken = 0;
    for (int k = 0; k < 64; ++k) {
        int v = data[(i * 7 + k) & 255];
        if (v & 1)
            continue;
        if (v < 0 && k > 5)
            break;
        s ^= v;
        ++taken;
    }
    out[2 * i] = s;
    out[2 * i + 1] = taken;
}

// Index of the first element of row i (16 per row) above the threshold, or -1.
extern "C" __global__ void find_first(const int* rows, int threshold, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int found = -1;
    for (int j = 0; j < 16; ++j) {
        if (rows[16 * i + j] > threshold) {
            found = j;
            break;
        }
    }
    out[i] = found;
}
