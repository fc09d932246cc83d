// Kernel parameters over 1 KB: a 1204-byte struct of 300 ints read with run-time indices
// (the parameter bank addressed through a register), and an 8 KB struct of floats (kernel
// parameters beyond the old 4 KB limit, CUDA 12.1+ on sm_70+).
struct Table {
    int count;
    int values[300];
};

struct Weights {
    float w[2048];
};

extern "C" __global__ void struct_param_large(Table tab, int* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int k = 0; k < tab.count / 10; ++k)
        acc += tab.values[(t * 37 + k * 11) % tab.count] * (k + 1);
    out[t] = acc;
}

extern "C" __global__ void struct_param_8k(Weights wt, const float* x, float* out)
{
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int j = 0; j < 8; ++j)
        acc = __fmaf_rn(wt.w[t * 8 + j], x[j], acc);
    out[t] = acc;
}
