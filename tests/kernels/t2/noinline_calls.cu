// Real calls (__noinline__): several argument types, return values of every width, structs
// passed and returned by value, a pointer to a caller's local struct, nested calls and calls in
// loops and under divergent control flow.
struct Vec3 {
    float x, y, z;
};
struct Pair {
    int lo;
    long long hi;
};
struct Big {
    int v[12];
    double d;
};

__device__ __noinline__ int mix(int a, int b, unsigned c, long long d)
{
    return (int)((unsigned)a * 31u + (unsigned)b) ^ (int)(c >> 3) ^ (int)(d >> 17);
}

__device__ __noinline__ float poly(float x, float a, float b, float c)
{
    return __fmaf_rn(__fmaf_rn(a, x, b), x, c);
}

__device__ __noinline__ double dmix(double x, int k, float f)
{
    return __dadd_rn(__dmul_rn(x, (double)k), (double)f);
}

__device__ __noinline__ bool in_range(float x, float lo, float hi)
{
    return x >= lo && x < hi;
}

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b)
{
    Vec3 r;
    r.x = __fsub_rn(__fmul_rn(a.y, b.z), __fmul_rn(a.z, b.y));
    r.y = __fsub_rn(__fmul_rn(a.z, b.x), __fmul_rn(a.x, b.z));
    r.z = __fsub_rn(__fmul_rn(a.x, b.y), __fmul_rn(a.y, b.x));
    return r;
}

__device__ __noinline__ Pair make_pair(int a, long long b)
{
    Pair p;
    p.lo = a ^ 0x55;
    p.hi = b * 3;
    return p;
}

__device__ __noinline__ Big fill_big(int seed)
{
    Big r;
    for (int i = 0; i < 12; ++i)
        r.v[i] = seed * (i + 1) + i;
    r.d = (double)seed * 0.5;
    return r;
}

__device__ __noinline__ long long sum_big(Big b, int skip)
{
    long long s = 0;
    for (int i = 0; i < 12; ++i)
        if (i != skip)
            s += (long long)b.v[i] * (i + 1);
    return s + (long long)b.d;
}

__device__ __noinline__ void scale_inplace(Vec3* v, float s)
{
    v->x = __fmul_rn(v->x, s);
    v->y = __fmul_rn(v->y, s);
    v->z = __fmul_rn(v->z, s);
}

__device__ __noinline__ unsigned popc_loop(unsigned x)
{
    unsigned n = 0;
    while (x) {
        x &= x - 1;
        ++n;
    }
    return n;
}

__device__ __noinline__ int chain(int x)
{
    return (int)((unsigned)mix(x, (int)popc_loop((unsigned)x), 7u, (long long)x * 1048576) + 1u);
}

extern "C" __global__ void noinline_calls(const int* ki, const float* kf, const double* kd,
                                          int* oi, float* of, double* od, long long* ol, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int a = ki[i];
    float f = kf[i], g = kf[n + i], h = kf[2 * n + i];
    double d = kd[i];

    oi[0 * n + i] = mix(a, i, (unsigned)a * 3u, (long long)a * 1000003LL);
    oi[1 * n + i] = in_range(f, -0.5f, 0.5f) ? chain(a) : (int)(0u - (unsigned)chain(i));  // divergent
    int acc = 0;
    for (int j = 0; j < (i & 7); ++j)                                    // calls in a loop
        acc = (int)((unsigned)acc + (unsigned)mix(acc, j, (unsigned)i, (long long)j));
    oi[2 * n + i] = acc;
    Pair p = make_pair(a, (long long)a << 12);
    oi[3 * n + i] = p.lo;
    ol[0 * n + i] = p.hi;
    ol[1 * n + i] = sum_big(fill_big(a >> 8), i % 12);

    of[0 * n + i] = poly(f, g, h, 0.25f);
    Vec3 u = {f, g, h}, v = {h, f, g};
    Vec3 w = cross(u, v);
    scale_inplace(&w, 2.5f);
    of[1 * n + i] = w.x;
    of[2 * n + i] = w.y;
    of[3 * n + i] = w.z;
    od[i] = dmix(d, a >> 20, f);
}
