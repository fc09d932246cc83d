// Module-level data: globals with and without initializers, __constant__ data, pointers in
// initializers (relocations in .nv.global.init / constant banks), managed memory.
#include <cstdio>
extern "C" {
__device__ int g_counter;
__device__ float g_table[64];
__device__ int g_init[4] = {1, 2, 3, 4};
__device__ double g_scalar_init = 2.5;
__device__ int *g_ptr = &g_init[2];
__constant__ float c_coef[16];
__constant__ int c_init[3] = {7, 8, 9};
__constant__ int *c_ptr = &g_counter;
__managed__ int m_value = 42;
static __device__ int s_hidden[8];

__global__ void use_globals(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = g_table[i & 63] * c_coef[i & 15] + c_init[i % 3] + g_init[i & 3] + *g_ptr
                 + (float)g_scalar_init + *c_ptr + m_value + s_hidden[i & 7];
        atomicAdd(&g_counter, 1);
        s_hidden[i & 7] = i;
    }
}

__global__ void no_params() { g_counter = 0; }
}
