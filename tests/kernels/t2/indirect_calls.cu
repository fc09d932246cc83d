// Indirect calls through a table of device-function pointers in global memory, selected by
// data (the callee differs across the lanes of a warp), and a call through a pointer argument.
typedef int (*binop_t)(int, int);

__device__ int op_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ int op_xor(int a, int b) { return a ^ b; }
__device__ int op_mulhi(int a, int b) { return __mulhi(a, b); }
__device__ int op_min(int a, int b) { return min(a, b); }
__device__ int op_rotl(int a, int b) { return (int)__funnelshift_l(a, a, b & 31); }

__device__ binop_t g_ops[5] = {op_add, op_xor, op_mulhi, op_min, op_rotl};

__device__ __noinline__ int apply_twice(binop_t f, int a, int b)
{
    return f(f(a, b), b);
}

extern "C" __global__ void indirect_calls(const unsigned* sel, const int* vals, int* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = sel[t];
    int acc = vals[t];
    for (int step = 0; step < 8; ++step) {
        binop_t f = g_ops[(s >> (4 * step)) % 5u];
        acc = f(acc, vals[(t + step + 1) % 64]);
    }
    out[2 * t] = acc;
    out[2 * t + 1] = apply_twice(g_ops[t % 5], vals[t], t * 7 + 1);
}
