// Asynchronous global -> shared copies: inline PTX cp.async.ca (4, 8, 16 bytes) and cp.async.cg
// (16 bytes, with a source size for zero fill), commit_group / wait_group N / wait_all; a
// double-buffered thread-scope cuda::pipeline with cuda::memcpy_async; and the collective
// cooperative_groups::memcpy_async + cg::wait.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned smem(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// 64 threads. Thread t copies, in three commit groups: words[t] (4 B), pairs[t] (8 B) and
// quads[t] (16 B, zero-filled past byte (t % 17) when t is odd); it checks each group after the
// matching wait_group, then all threads read neighbours' data after __syncthreads.
extern "C" __global__ void cp_async_ptx(const unsigned* src, unsigned* out)
{
    __shared__ __align__(16) unsigned words[64];
    __shared__ __align__(16) unsigned pairs[64 * 2];
    __shared__ __align__(16) unsigned quads[64 * 4];
    int t = threadIdx.x;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(&words[t])), "l"(src + t));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;"
                 ::"r"(smem(&pairs[2 * t])), "l"(src + 64 + 2 * t));
    asm volatile("cp.async.commit_group;");
    if (t & 1) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                     ::"r"(smem(&quads[4 * t])), "l"(src + 192 + 4 * t), "r"(t % 17));
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;"
                     ::"r"(smem(&quads[4 * t])), "l"(src + 192 + 4 * t));
    }
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 2;");          // group 0 (words) has landed
    unsigned x = words[t] * 3u;
    asm volatile("cp.async.wait_group 1;");          // groups 0-1
    x ^= pairs[2 * t] + pairs[2 * t + 1];
    asm volatile("cp.async.wait_all;");
    x += quads[4 * t] ^ quads[4 * t + 1] ^ quads[4 * t + 2] ^ quads[4 * t + 3];
    __syncthreads();
    out[t] = x;
    out[64 + t] = words[63 - t] + pairs[(2 * t + 5) % 128];
    for (int j = 0; j < 4; ++j)
        out[128 + 4 * t + j] = quads[4 * ((t + 1) % 64) + j];
}

// Thread-scope pipeline, two stages: thread t sums STEPS chunks of 4 floats (16 bytes), the
// copy of chunk s+1 in flight while chunk s is consumed.
#define STEPS 6
extern "C" __global__ void cp_async_pipeline(const float4* src, float* out)
{
    __shared__ float4 buf[2][64];
    int t = threadIdx.x;
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[0][t], &src[t], cuda::aligned_size_t<16>(sizeof(float4)), pipe);
    pipe.producer_commit();
    float acc = 0.0f;
    for (int s = 0; s < STEPS; ++s) {
        if (s + 1 < STEPS) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[(s + 1) & 1][t], &src[(s + 1) * 64 + t],
                               cuda::aligned_size_t<16>(sizeof(float4)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        float4 v = buf[s & 1][t];
        acc = __fadd_rn(acc, __fadd_rn(__fadd_rn(v.x, v.y), __fadd_rn(v.z, v.w)));
        pipe.consumer_release();
    }
    out[t] = acc;
}

// Collective copy: the block copies 2 KB into shared memory with cg::memcpy_async, waits, and
// each thread reverses a slice.
extern "C" __global__ void cp_async_cg(const int* src, int* out)
{
    __shared__ __align__(16) int tile[512];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tile, src + blockIdx.x * 512, sizeof(int) * 512);
    cg::wait(block);
    int t = threadIdx.x;
    for (int j = 0; j < 8; ++j)
        out[blockIdx.x * 512 + t * 8 + j] = (int)((unsigned)tile[511 - (t * 8 + j)] - (unsigned)j);
}
