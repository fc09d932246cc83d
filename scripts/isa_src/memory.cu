// Loads and stores of every width and space; local arrays; constant memory; atomics.
#include <cstdint>
__constant__ float cdata[64];
__device__ int gcount;
extern "C" __global__ void mem_widths(char *c, short *s, int *w, long long *l, int4 *q, float4 *f4, double2 *d2, int n) {
    int i = threadIdx.x;
    __shared__ char sc[256];
    __shared__ short ss[256];
    __shared__ int si[256];
    __shared__ long long sl[256];
    __shared__ int4 sq[256];
    sc[i] = c[i]; ss[i] = s[i]; si[i] = w[i]; sl[i] = l[i]; sq[i] = q[i];
    __syncthreads();
    int j = (i * 7 + n) & 255;
    c[i + 256] = sc[j] + (unsigned char)sc[j + 1];
    s[i + 256] = ss[j] + (unsigned short)ss[j ^ 1];
    w[i + 256] = si[j] + si[j + 3];
    l[i + 256] = sl[j] + sl[1];
    q[i + 256] = sq[j];
    f4[i] = f4[i + n];
    d2[i] = d2[i * 3];
    ((unsigned char *)w)[i] = ((unsigned char *)c)[i * 3];
    ((unsigned short *)w)[i + 7] = ((const unsigned short *)s)[n];
}
extern "C" __global__ void mem_const(float *o, const float *__restrict__ in, const int4 *__restrict__ q, int n) {
    int i = threadIdx.x;
    float acc = __ldg(&in[i]) + cdata[i & 63] + cdata[3] + __ldg(&in[i + 1024]);
    int4 v = __ldg(&q[i]);
    acc += v.x + v.y + v.z + v.w;
    acc += __ldcs(&in[i + n]) + __ldlu(&in[i + 2 * n]) + __ldcg(&in[i * 2]) + __ldca(&in[i * 4]) + __ldcv(&in[i*5]);
    __stcs(&o[i + n], acc);
    __stwt(&o[i + 2 * n], acc);
    __stcg(&o[i], acc);
    o[i * 3] = acc;
}
extern "C" __global__ void mem_local(float *o, const int *idx, int n) {
    float arr[32];
    double darr[8];
    for (int k = 0; k < 32; ++k) arr[k] = o[k * n + threadIdx.x];
    for (int k = 0; k < 8; ++k) darr[k] = (double)o[k + 7];
    o[threadIdx.x] = arr[idx[threadIdx.x] & 31] + (float)darr[idx[0] & 7];
}
extern "C" __global__ void atomics(int *a, unsigned *u, float *f, unsigned long long *l, double *d, int n) {
    int i = threadIdx.x;
    __shared__ int sh[64];
    __shared__ float shf[64];
    sh[i & 63] = 0; shf[i & 63] = 0;
    __syncthreads();
    atomicAdd(&sh[i & 63], i);
    atomicMax(&sh[(i + 1) & 63], n);
    atomicExch(&sh[(i + 3) & 63], i);
    atomicCAS(&sh[(i + 4) & 63], n, i);
    atomicAdd(&shf[i & 63], 1.5f);
    atomicInc((unsigned *)&sh[5], 17u);
    int old = atomicAdd(&a[i], 5);
    atomicAdd(&a[0], 1);
    atomicSub(&a[1], n);
    atomicMin(&a[2], old);
    atomicAnd(&u[0], 0xff00u);
    atomicOr(&u[1], (unsigned)i);
    unsigned x = atomicXor(&u[2], (unsigned)old);
    atomicCAS(&u[3], x, 7u);
    atomicAdd(&f[0], 1.0f);
    float fo = atomicAdd(&f[i + 1], 2.0f);
    atomicAdd(&l[0], 1ull);
    unsigned long long lo = atomicCAS(&l[1], 5ull, (unsigned long long)i);
    atomicAdd(&d[0], 0.5);
    atomicMax((unsigned long long *)&l[2], lo);
    atomicExch(&gcount, i);
    __syncthreads();
    a[i + 64] = sh[i & 63] + (int)shf[i & 63] + (int)fo + (int)lo;
}
extern "C" __global__ void fences(int *a, volatile int *v, int n) {
    int i = threadIdx.x;
    a[i] = n;
    __threadfence_block();
    v[i] = 3;
    __threadfence();
    a[i + 64] = v[i + 1];
    __threadfence_system();
    int r;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(r) : "l"(a));
    asm volatile("st.release.sys.global.u32 [%0], %1;" :: "l"(a + 1), "r"(r));
    asm volatile("ld.relaxed.cta.global.u32 %0, [%1];" : "=r"(r) : "l"(a + 2));
    asm volatile("st.volatile.global.u32 [%0], %1;" :: "l"(a + 3), "r"(r));
    asm volatile("fence.acq_rel.gpu;");
    asm volatile("fence.sc.cta;");
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(a + 4), "r"(r));
    a[i + 128] = r;
}
