// printf (vprintf), assert (__assertfail), trap.
#include <cstdio>
#include <cassert>
extern "C" {
__global__ void do_printf(const int *in) {
    printf("thread %d value %d\n", threadIdx.x, in[threadIdx.x]);
}
__global__ void do_assert(const int *in) {
    assert(in[threadIdx.x] >= 0);
}
__global__ void do_trap(const int *in) {
    if (in[threadIdx.x] < 0) __trap();
}
}
