// IMMA u8 and LDSM x2 forms.
extern "C" __global__ void imma_u8(const unsigned *a, int *c) {
    __shared__ __align__(128) unsigned short sm[1024];
    int i = threadIdx.x;
    for (int k = i; k < 1024; k += 32) sm[k] = (unsigned short)(a[k] & 0xffff);
    __syncwarp();
    unsigned a0 = a[i], a1 = a[i + 32], b0 = a[i + 64], d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    unsigned r0, r1;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&sm[i * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3) : "r"(a0 ^ r0), "r"(a1 ^ r1), "r"(b0));
    c[i] = d0 + d1 + d2 + d3;
}
