// C++ kernels in nested namespaces, overloaded kernels (same name, different parameter types),
// and a user struct (a 12-byte Vec3, loaded and stored as array-of-structs) in the signatures.

namespace geo {

struct Vec3 {
    float x, y, z;
};

__device__ __forceinline__ Vec3 cross(const Vec3& a, const Vec3& b)
{
    return Vec3{__fmaf_rn(a.y, b.z, -__fmul_rn(a.z, b.y)), __fmaf_rn(a.z, b.x, -__fmul_rn(a.x, b.z)),
                __fmaf_rn(a.x, b.y, -__fmul_rn(a.y, b.x))};
}

namespace ops {

__global__ void cross_all(const Vec3* a, const Vec3* b, Vec3* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = cross(a[i], b[i]);
}

}  // namespace ops

__global__ void scale(Vec3* v, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Vec3 p = v[i];
        v[i] = Vec3{p.x * s, p.y * s, p.z * s};
    }
}

__global__ void scale(int* v, int s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = (int)((unsigned)v[i] * (unsigned)s);
}

}  // namespace geo
