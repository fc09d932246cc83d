// PTX front-end test data: state spaces, vectors, atomics, warp intrinsics, barriers, calls.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__constant__ float c_table[64];
__device__ int g_counter;
__device__ unsigned long long g_sum;
__device__ float g_arr[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ float* g_ptr = g_arr + 1;

struct Big { float f[9]; int k; double d; };

__device__ __noinline__ float callee(float x, int k, Big b) {
  float s = 0.0f;
  for (int j = 0; j < k; ++j) s += b.f[j % 9] * x;
  return s + (float)b.d;
}

__device__ __noinline__ int recurse(int n) { return n <= 1 ? 1 : n * recurse(n - 1); }

typedef float (*fnptr)(float);
__device__ float f_sq(float x) { return x * x; }
__device__ float f_neg(float x) { return -x; }
__device__ fnptr fns[2] = {f_sq, f_neg};

extern "C" __global__ void mem_ops(float4* v4, float2* v2, int* out, float* fo, Big big, int n) {
  __shared__ float tile[256];
  __shared__ int counts[32];
  extern __shared__ float dyn[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = threadIdx.x;
  float4 a = v4[i];
  float2 b = __ldg(&v2[i]);
  tile[t] = a.x + a.y + b.x + c_table[t & 63];
  dyn[t] = tile[t] * 2.0f;
  if (t < 32) counts[t] = 0;
  __syncthreads();
  atomicAdd(&counts[t & 31], 1);
  atomicAdd(&g_counter, 1);
  atomicMax(&out[0], i);
  atomicCAS(&out[1], 0, i);
  atomicExch(&out[2], i);
  atomicAdd(&fo[0], a.z);
  atomicAdd(&g_sum, 1ull);
  atomicAnd(&out[3], 0xff);
  atomicOr(&out[4], t);
  atomicXor(&out[5], t);
  atomicInc((unsigned*)&out[6], 100u);
  atomicAdd((double*)&fo[2], 1.0);
  __syncthreads();
  float s = tile[(t + 1) & 255] + dyn[(t + 3) & 255];
  s += __shfl_sync(0xffffffff, s, 0);
  s += __shfl_down_sync(0xffffffff, s, 1);
  s += __shfl_xor_sync(0xffffffff, s, 2);
  int vote = __ballot_sync(0xffffffff, s > 0.0f) + __all_sync(0xffffffff, s > 1.0f) + __any_sync(0xffffffff, s > 2.0f);
  int m = __match_any_sync(0xffffffff, t & 3);
  unsigned act = __activemask();
  __syncwarp();
  int cnt = __syncthreads_count(s > 0.5f) + __syncthreads_and(s > 0.1f) + __syncthreads_or(s > 0.2f);
  volatile float* vp = fo;
  vp[3] = s;
  __threadfence();
  __threadfence_block();
  __threadfence_system();
  out[i + 8] = vote + m + (int)act + cnt + recurse(t & 7) + (int)__ldcg(&fo[4]) + (int)__ldcs(&fo[5]);
  __stcg(&fo[6], s);
  __stwt(&fo[7], s);
  fo[i + 16] = callee(s, n, big) + fns[t & 1](s) + *g_ptr;
  float local[20];
  for (int j = 0; j < 20; ++j) local[j] = s * j;
  fo[i + 32] = local[n % 20] + (float)clock() + (float)clock64();
  if (i == 0) printf("n=%d s=%f %s\n", n, s, "ok");
  switch (n & 7) {
    case 0: out[1] += 1; break;
    case 1: out[2] += 3; break;
    case 2: out[3] += 5; break;
    case 3: out[4] += 7; break;
    case 4: out[5] += 11; break;
    default: out[6] += 13; break;
  }
  if (n < 0) __trap();
  if (n == 12345) asm volatile("brkpt;");
  __nanosleep(100);
}

extern "C" __global__ void grid_sync(int* data) {
  cg::grid_group g = cg::this_grid();
  data[g.thread_rank()] += 1;
  g.sync();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  data[g.thread_rank()] += cg::reduce(w, data[g.thread_rank()], cg::plus<int>());
}


extern "C" __global__ void tex_ops(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float* out) {
  int i = threadIdx.x;
  float v = tex1Dfetch<float>(tex, i) + tex2D<float>(tex, 0.5f, 0.25f) + tex3D<float>(tex, 0.1f, 0.2f, 0.3f);
  float4 q = tex2DLod<float4>(tex, 0.5f, 0.5f, 1.0f);
  float r;
  surf2Dread(&r, surf, i * 4, 0);
  surf2Dwrite(v + r + q.x, surf, i * 4, 1);
  out[i] = v + q.w;
}
