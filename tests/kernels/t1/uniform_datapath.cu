// Code ptxas keeps on the uniform datapath: loops whose trip counts and addresses depend only on
// kernel parameters and blockIdx (UIADD3/UISETP loop control, UIMAD/ULEA addressing), 32- and
// 64-bit hash chains of parameters (UIMAD, UIMAD.WIDE, USHF, ULOP3), uniform branches on
// parameters, and variable 64-bit shifts of uniform values.

// out[b * blockDim + t] = sum over k < reps of a[(b * stride + 3 * k + t) % n]
extern "C" __global__ void uni_loop(const int* a, int* out, int n, int stride, int reps)
{
    int t = threadIdx.x, b = blockIdx.x;
    unsigned acc = 0;
    for (int k = 0; k < reps; ++k) {
        int base = b * stride + 3 * k;               // uniform
        acc += (unsigned)a[(base + t) % n];
    }
    out[b * blockDim.x + t] = (int)acc;
}

extern "C" __global__ void uni_hash(unsigned* out, unsigned p, unsigned q, unsigned s, int rounds)
{
    unsigned h = p * 0x9e3779b9u + q;
    h ^= (p >> (s & 31)) | (q << ((s + 7) & 31));
    unsigned long long w = (unsigned long long)p * q + blockIdx.x;
    h += (unsigned)(w >> (s & 31)) ^ (unsigned)(w >> 32);
    for (int r = 0; r < rounds; ++r) {             // uniform loop, uniform state
        h = h * 33u ^ (h >> 5);
        h = (h & 0xff00ff00u) | (~h & 0x00ff00ffu);
        h += blockIdx.x * 0x1001u + (unsigned)r;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = h + threadIdx.x * (h | 1u);
}

// out[(b, t)] = sum over r < rows, c < cols of a[(r * ld + c + b) % n] * (r + 1) + t
extern "C" __global__ void uni_nested(const int* a, int* out, int n, int rows, int cols, int ld)
{
    int t = threadIdx.x, b = blockIdx.x;
    unsigned acc = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            acc += (unsigned)a[(r * ld + c + b) % n] * (unsigned)(r + 1);
    out[b * blockDim.x + t] = (int)(acc + (unsigned)t);
}

extern "C" __global__ void uni_branch(const int* a, int* out, int mode, int k)
{
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    unsigned v = (unsigned)a[i], u;
    unsigned m = (unsigned)mode * 5u + blockIdx.x;   // uniform
    if (m % 3 == 0)
        u = v + (unsigned)k;
    else if (m % 3 == 1)
        u = v ^ ((unsigned)k << (m & 15));
    else
        u = v * (unsigned)(k | 1);
    if (mode > 2 && blockIdx.x != 1)
        u = ~u;
    out[i] = (int)u;
}

extern "C" __global__ void uni_wide(const unsigned long long* a, unsigned long long* out,
                                    unsigned long long k, int sh)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long u = k * 0x100000001ull + blockIdx.x;          // uniform 64-bit
    unsigned long long l = u << (sh & 63), r = u >> ((sh + 13) & 63);
    long long sr = (long long)u >> ((sh * 3) & 63);
    unsigned long long x = a[i];
    out[4 * i + 0] = x + l;
    out[4 * i + 1] = x ^ r;
    out[4 * i + 2] = x - (unsigned long long)sr;
    out[4 * i + 3] = x * (u | 1);
}
