// PTX front-end test data: integer/float/half arithmetic, conversions, math library, bit ops.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

extern "C" __global__ void int_ops(int* out, const int* a, const unsigned* b, long long* w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i];
  unsigned y = b[i];
  out[i * 16 + 0] = x / (int)(y | 1) + x % 7;
  out[i * 16 + 1] = (int)(y / 13u + y % 5u);
  out[i * 16 + 2] = __popc(y) + __clz(x) + __ffs(x) + __brev(y);
  out[i * 16 + 3] = __funnelshift_l(x, y, 5) ^ __funnelshift_r(x, y, y);
  out[i * 16 + 4] = __byte_perm(x, y, 0x3210) + __sad(x, (int)y, 3u);
  out[i * 16 + 5] = __mulhi(x, (int)y) + __umulhi(y, 7u) + __mul24(x, 3);
  out[i * 16 + 6] = min(x, (int)y) + max(x, 3) + abs(x);
  out[i * 16 + 7] = (x >> 3) + (int)(y >> (x & 31)) + (x << 2);
  out[i * 16 + 8] = __dp4a(x, (int)y, 1) + __dp2a_lo(x, (int)y, 2);
  out[i * 16 + 9] = (int)__vadd4(y, (unsigned)x) + (int)__vsub2(y, 3u) + (int)__vabsdiffu4(y, 5u);
  long long p = (long long)x * (long long)y;
  w[i] = p / (w[i] | 1) + __mul64hi(p, 12345) + __popcll(p) + __clzll(p) + __brevll(p);
  unsigned long long u = (unsigned long long)w[i];
  w[i + n] = (long long)(u % 1000000007ull) + (long long)(u >> 17);
  out[i * 16 + 10] = (x > 0) ? x : -x;
}

extern "C" __global__ void float_ops(float* out, const float* a, const double* d, double* dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  out[i * 16 + 0] = x / (a[i + 1] + 1.0f) + sqrtf(x) + rsqrtf(x) + 1.0f / x;
  out[i * 16 + 1] = sinf(x) + cosf(x) + tanf(x) + expf(x) + logf(x) + powf(x, 2.5f);
  out[i * 16 + 2] = __sinf(x) + __cosf(x) + __expf(x) + __logf(x) + __fdividef(x, 3.0f);
  out[i * 16 + 3] = fmaf(x, 2.0f, 1.0f) + __fmul_rz(x, x) + __fadd_rd(x, 1.0f) + __fmaf_ru(x, x, x);
  out[i * 16 + 4] = floorf(x) + ceilf(x) + truncf(x) + roundf(x) + rintf(x) + fabsf(x);
  out[i * 16 + 5] = fminf(x, 1.0f) + fmaxf(x, 2.0f) + copysignf(x, -1.0f) + __saturatef(x);
  out[i * 16 + 6] = (float)(int)x + (float)(unsigned)x + __int2float_rz((int)x) + __uint2float_rd(7u);
  out[i * 16 + 7] = isnan(x) ? 1.0f : (isinf(x) ? 2.0f : (float)isfinite(x));
  out[i * 16 + 8] = erff(x) + lgammaf(x) + atan2f(x, 1.0f) + cbrtf(x) + tanhf(x);
  out[i * 16 + 9] = __frcp_rn(x) + __fsqrt_rn(x) + __fdiv_rn(x, 3.0f) + exp2f(x) + log2f(x);
  double y = d[i];
  dout[i * 8 + 0] = y / (d[i + 1] + 1.0) + sqrt(y) + rsqrt(y) + 1.0 / y;
  dout[i * 8 + 1] = sin(y) + cos(y) + exp(y) + log(y) + pow(y, 1.5);
  dout[i * 8 + 2] = fma(y, 2.0, 1.0) + __dmul_rz(y, y) + __dadd_rd(y, 1.0);
  dout[i * 8 + 3] = (double)x + (double)(long long)y + (double)(unsigned long long)y;
  dout[i * 8 + 4] = floor(y) + ceil(y) + trunc(y) + round(y) + fabs(y) + fmin(y, 1.0);
  out[i * 16 + 10] = (float)y + __double2float_rz(y) + (float)__double2int_rn(y);
  dout[i * 8 + 5] = __longlong_as_double(__double_as_longlong(y) ^ 1) + __hiloint2double(3, (int)x);
}

extern "C" __global__ void half_ops(__half* h, __nv_bfloat16* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = h[i];
  __half2 x2 = __halves2half2(x, h[i + 1]);
  x2 = __hfma2(x2, x2, x2);
  x2 = __hadd2(x2, __hmul2(x2, x2));
  x = __hadd(__low2half(x2), __high2half(x2));
  x = __hmul(x, hsqrt(x));
  x = __hmax(x, __hmin(x, __float2half(1.0f)));
  h[i] = __hneg(x) + hexp(x) + htanh_approx(x);
  __nv_bfloat16 y = b[i];
#if __CUDA_ARCH__ >= 800
  __nv_bfloat162 y2 = __halves2bfloat162(y, b[i + 1]);
  y2 = __hfma2(y2, y2, y2);
  y = __hadd(__low2bfloat16(y2), __high2bfloat16(y2));
  b[i] = __hmul(y, y) + __hmax(y, y);
#endif
  out[i] = __half2float(x) + __bfloat162float(y) + (float)(__hlt(x, __float2half(0.5f)));
}
