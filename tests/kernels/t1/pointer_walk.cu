// Pointer-heavy code: chasing "next" links through an array of 8-byte nodes (a data-dependent
// chain of dependent loads), walking a pointer backwards with a negative stride, 64-bit pointer
// differences, and a pointer selected between two arrays per thread.

struct Node {
    int next;
    int value;
};

extern "C" __global__ void chase(const Node* nodes, int* out, int steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const Node* p = nodes + i;
    unsigned sum = 0;
    for (int k = 0; k < steps; ++k) {
        sum = sum * 31u + (unsigned)p->value;
        p = nodes + ((unsigned)p->next % (unsigned)n);
    }
    out[2 * i] = (int)sum;
    out[2 * i + 1] = (int)(p - nodes);
}

extern "C" __global__ void walk_back(const int* a, const int* b, long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int* base = (i & 1) ? b : a;
    // The pointer never leaves the array (forming one before its start would be undefined).
    const int* p = base + (n - 1 - i);
    long long acc = 0;
    for (;;) {
        acc += *p;
        if (p - base < 3)
            break;
        p -= 3;
    }
    out[2 * i] = acc;
    out[2 * i + 1] = (long long)(p - base);
}
