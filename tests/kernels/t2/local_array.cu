// Per-thread arrays indexed with run-time values, so they live in local memory (STL/LDL):
// a scrambling walk over an int array, an insertion sort of floats, and a histogram.
#define WORDS 40
#define STEPS 64

extern "C" __global__ void local_scramble(const unsigned* in, const unsigned* walk,
                                          unsigned* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned buf[WORDS];
    for (int j = 0; j < WORDS; ++j)
        buf[j] = in[t * WORDS + j];
    unsigned w = walk[t];
    unsigned k = 0;
    for (unsigned s = 0; s < STEPS; ++s) {
        int p = (int)(w % WORDS);
        int q = (int)((w >> 8) % WORDS);
        buf[p] += buf[q] ^ s;               // data-dependent read and write
        k ^= buf[(p + q + s) % WORDS];
        w = w * 1664525u + 1013904223u;      // next step of the walk
    }
    for (int j = 0; j < WORDS; ++j)
        out[t * (WORDS + 1) + j] = buf[j];
    out[t * (WORDS + 1) + WORDS] = k;
}

#define KEYS 24

extern "C" __global__ void local_sort_hist(const float* in, float* sorted, int* hist_out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v[KEYS];
    int hist[16];
    for (int j = 0; j < 16; ++j)
        hist[j] = 0;
    for (int j = 0; j < KEYS; ++j) {
        float x = in[t * KEYS + j];
        v[j] = x;
        int bin = (int)floorf(x * 4.0f) + 8;          // 16 bins of width 0.25 over [-2, 2)
        hist[min(max(bin, 0), 15)] += 1;
    }
    for (int j = 1; j < KEYS; ++j) {                  // insertion sort with a dynamic inner loop
        float key = v[j];
        int m = j - 1;
        while (m >= 0 && v[m] > key) {
            v[m + 1] = v[m];
            --m;
        }
        v[m + 1] = key;
    }
    for (int j = 0; j < KEYS; ++j)
        sorted[t * KEYS + j] = v[j];
    for (int j = 0; j < 16; ++j)
        hist_out[t * 16 + j] = hist[j];
}
