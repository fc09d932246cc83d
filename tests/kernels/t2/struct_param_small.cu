// Small structs passed to kernels by value: a 32-byte struct with mixed field widths and
// padding, and 8- and 16-byte (alignas(16)) structs between scalar and pointer parameters, so
// that the parameter offsets depend on each struct's alignment.
struct Params {
    int n;                    // offset 0
    float scale;              // 4
    double bias;              // 8
    short tag;                // 16
    unsigned char flags[3];   // 18
    long long mask;           // 24 (after 3 bytes of padding); sizeof = 32, align 8
};

struct Vec2 {
    float x, y;               // sizeof 8, align 4
};

struct alignas(16) Quad {
    int a, b, c, d;           // sizeof 16, align 16
};

extern "C" __global__ void struct_param_small(Params p, const float* x, double* out, int* tags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n)
        return;
    out[i] = __dadd_rn((double)__fmul_rn(x[i], p.scale), p.bias);
    tags[i] = (p.tag * (int)p.flags[i % 3]) ^ (int)(p.mask >> (i % 64));
}

extern "C" __global__ void struct_param_mixed(int k, Vec2 v, Quad q, float* out)
{
    int i = threadIdx.x;
    int sel = (i + k) & 3;
    int w = sel == 0 ? q.a : sel == 1 ? q.b : sel == 2 ? q.c : q.d;
    out[i] = __fmaf_rn((float)w, v.x, v.y * (float)i);
}
