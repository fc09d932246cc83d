// An indexed jump table written in PTX (.branchtargets + brx.idx, which nvcc never emits for a
// switch itself): ptxas turns it into BRX through a table in constant memory. Lanes of a warp take
// different targets, and the jump runs several times per thread inside a kept loop (so the asm is
// emitted once and its labels stay unique).

__device__ __forceinline__ unsigned jump8(unsigned sel, unsigned x)
{
    unsigned r;
    asm("{\n\t"
        ".reg .u32 idx;\n\t"
        "and.b32 idx, %1, 7;\n\t"
        "ts: .branchtargets L0, L1, L2, L3, L4, L5, L6, L7;\n\t"
        "brx.idx idx, ts;\n\t"
        "L0: add.u32 %0, %2, 1;\n\t"
        "bra Ldone;\n\t"
        "L1: mul.lo.u32 %0, %2, 3;\n\t"
        "bra Ldone;\n\t"
        "L2: xor.b32 %0, %2, 0x55aa55aa;\n\t"
        "bra Ldone;\n\t"
        "L3: shr.u32 %0, %2, 2;\n\t"
        "bra Ldone;\n\t"
        "L4: not.b32 %0, %2;\n\t"
        "bra Ldone;\n\t"
        "L5: shl.b32 %0, %2, 5;\n\t"
        "bra Ldone;\n\t"
        "L6: sub.u32 %0, 1000, %2;\n\t"
        "bra Ldone;\n\t"
        "L7: brev.b32 %0, %2;\n\t"
        "Ldone:\n\t"
        "}"
        : "=r"(r)
        : "r"(sel), "r"(x));
    return r;
}

extern "C" __global__ void switch_brx(const unsigned* a, unsigned* out, int rounds, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], sel = x;
#pragma unroll 1
    for (int k = 0; k < rounds; ++k) {
        x = jump8(sel, x) + (unsigned)k;
        sel = (sel >> 3) ^ x;
    }
    out[i] = x;
}
