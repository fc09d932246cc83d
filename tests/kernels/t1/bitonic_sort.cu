// Bitonic sort of 256 keys per block in shared memory (256 threads; each compare-exchange is done
// by the lower thread of the pair), ascending, with __syncthreads between stages; and a key-value
// variant sorting (key, index) pairs with the index breaking ties, so the permutation is unique.

extern "C" __global__ void bitonic_sort_keys(const int* in, int* out)
{
    __shared__ int s[256];
    int t = threadIdx.x, base = blockIdx.x * 256;
    s[t] = in[base + t];
    __syncthreads();
    for (int k = 2; k <= 256; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int p = t ^ j;
            if (p > t) {
                bool up = (t & k) == 0;
                int a = s[t], b = s[p];
                if ((a > b) == up) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    }
    out[base + t] = s[t];
}

extern "C" __global__ void bitonic_sort_pairs(const unsigned* keys, unsigned* out_keys,
                                              int* out_idx)
{
    __shared__ unsigned long long s[256];
    int t = threadIdx.x, base = blockIdx.x * 256;
    // Keys are folded to 8 bits so that many are equal and the index decides their order.
    s[t] = ((unsigned long long)(keys[base + t] >> 24) << 32) | (unsigned)t;
    __syncthreads();
    for (int k = 2; k <= 256; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int p = t ^ j;
            if (p > t) {
                bool up = (t & k) == 0;
                unsigned long long a = s[t], b = s[p];
                if ((a > b) == up) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    }
    out_keys[base + t] = (unsigned)(s[t] >> 32);
    out_idx[base + t] = (int)(s[t] & 0xffffffffu);
}
