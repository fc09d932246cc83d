// Recursive device functions (a call stack of data-dependent, bounded depth): fibonacci,
// mutual recursion, and depth / sum of binary subtrees stored in arrays.
#define NODES 63

__device__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ bool is_odd(unsigned n);
__device__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__device__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

// Node i has children 2i+1 and 2i+2 when they are < NODES and bits 0/1 of present[i] are set;
// thread 63 starts at node 63, past the tree: a lone leaf.
__device__ int child(const unsigned* present, int node, int side)
{
    int c = 2 * node + 1 + side;
    return (c < NODES && ((present[node] >> side) & 1u)) ? c : -1;
}

__device__ int depth(const unsigned* present, int node)
{
    if (node < 0)
        return 0;
    return 1 + max(depth(present, child(present, node, 0)), depth(present, child(present, node, 1)));
}

__device__ long long subtree_sum(const unsigned* present, const int* val, int node, int level)
{
    if (node < 0)
        return 0;
    long long s = (long long)val[node] * (level + 1);
    s += subtree_sum(present, val, child(present, node, 0), level + 1);
    s -= subtree_sum(present, val, child(present, node, 1), level + 1);
    return s;
}

extern "C" __global__ void recursion(const unsigned* present, const int* val, int* oi,
                                     long long* ol)
{
    int t = threadIdx.x;
    oi[3 * t] = fib(t % 13);
    oi[3 * t + 1] = is_even((unsigned)(t * 7 % 41)) ? 1 : 2;
    oi[3 * t + 2] = depth(present, t);
    ol[t] = subtree_sum(present, val, t, 0);
}
