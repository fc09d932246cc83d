// Device-side launches (CUDA dynamic parallelism, -rdc=true, linked with cudadevrt): a parent
// grid launches one child grid per block; each child launches a grandchild that doubles its
// output; one launch has more arguments and a dynamic shared-memory size. tests/emu/test_cdp.py
// holds the reference.

extern "C" __global__ void grandchild(int* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] *= 2;
}

extern "C" __global__ void child(int* out, int base, int n) {
  extern __shared__ int tmp[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tmp[threadIdx.x] = base + i * 3;
  __syncthreads();
  out[i] = tmp[blockDim.x - 1 - threadIdx.x];
  if (i == 0) grandchild<<<1, 64>>>(out, n);
}

extern "C" __global__ void parent(int* out, int* status, int per_block) {
  if (threadIdx.x == 0) {
    int b = blockIdx.x;
    child<<<2, per_block / 2, (per_block / 2) * sizeof(int)>>>(out + b * per_block, b * 1000,
                                                                per_block);
    status[b] = (int)cudaGetLastError() + 7;
  }
  out[gridDim.x * per_block + blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}
