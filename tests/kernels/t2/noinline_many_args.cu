// Calls whose arguments overflow the parameter registers of the ABI: 28 scalar arguments of
// mixed widths, and a 320-byte struct by value; both spill to the stack at the call.
struct Result {
    long long isum;
    double fsum;
};
struct Wide {
    int v[80];
};

__device__ __noinline__ Result many(int a0, int a1, int a2, int a3, int a4, int a5, int a6,
                                    int a7, int a8, int a9, int a10, int a11, float f0,
                                    float f1, float f2, float f3, float f4, float f5, float f6,
                                    float f7, double d0, double d1, double d2, double d3,
                                    long long l0, long long l1, unsigned char c, short s)
{
    Result r;
    r.isum = (long long)a0 + 2LL * a1 + 3LL * a2 + 4LL * a3 + 5LL * a4 + 6LL * a5 + 7LL * a6 +
             8LL * a7 + 9LL * a8 + 10LL * a9 + 11LL * a10 + 12LL * a11 + (l0 >> 3) - (l1 >> 5) +
             c * 1000 + s;
    double f = 0.0;
    f = __dadd_rn(f, (double)f0);
    f = __dadd_rn(f, (double)f1 * 2.0);
    f = __dadd_rn(f, (double)f2 * 4.0);
    f = __dadd_rn(f, (double)f3 * 8.0);
    f = __dadd_rn(f, (double)f4);
    f = __dadd_rn(f, (double)f5);
    f = __dadd_rn(f, (double)f6);
    f = __dadd_rn(f, (double)f7);
    f = __dadd_rn(f, d0);
    f = __dadd_rn(f, d1);
    f = __dadd_rn(f, __dmul_rn(d2, d3));
    r.fsum = f;
    return r;
}

__device__ __noinline__ unsigned wide_hash(Wide w, int k)
{
    unsigned h = 2166136261u;
    for (int j = 0; j < 80; ++j)
        h = (h ^ (unsigned)w.v[(j + k) % 80]) * 16777619u;
    return h;
}

extern "C" __global__ void noinline_many_args(const int* ki, const float* kf, const double* kd,
                                              const long long* kl, long long* oi, double* od,
                                              unsigned* oh)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int* p = ki + t * 12;
    const float* q = kf + t * 8;
    const double* d = kd + t * 4;
    Result r = many(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11],
                    q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], d[0], d[1], d[2], d[3],
                    kl[2 * t], kl[2 * t + 1], (unsigned char)p[0], (short)p[1]);
    oi[t] = r.isum;
    od[t] = r.fsum;
    Wide w;
    for (int j = 0; j < 80; ++j)
        w.v[j] = (int)((unsigned)p[j % 12] + (unsigned)j);
    oh[t] = wide_hash(w, t);
}
