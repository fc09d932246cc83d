// Tiled matrix multiply C[M x N] = A[M x K] * B[K x N] with 16x16 shared tiles: tiles are padded
// with zeros at the matrix edges (M, N, K not multiples of 16), each output accumulates with a
// pinned fma in increasing k, so the float result is exact to reproduce; an int version wraps.

#define T 16

extern "C" __global__ void matmul_f32(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k)
            acc = __fmaf_rn(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

extern "C" __global__ void matmul_i32(const int* A, const int* B, int* C, int M, int N, int K)
{
    __shared__ int As[T][T];
    __shared__ int Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    unsigned acc = 0;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0;
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < T; ++k)
            acc += (unsigned)As[ty][k] * (unsigned)Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = (int)acc;
}
