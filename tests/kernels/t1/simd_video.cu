// SIMD-within-a-word intrinsics on packed bytes and halfwords (the PTX video instructions, which
// newer GPUs emulate): wrapping and saturating add/sub, absolute differences, averages, compares
// producing lane masks, min/max, negation, sums of absolute differences, __sad/__usad, __hadd/
// __rhadd/__uhadd/__urhadd, and the dot products __dp4a and __dp2a_lo/hi.

extern "C" __global__ void simd_video(const unsigned* a, const unsigned* b, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i];
    // Every third element compares a word with itself so that equal lanes occur.
    if (i % 3 == 0)
        y = (x & 0xff00ff00u) | (y & 0x00ff00ffu);
    unsigned* o = out + i;
    o[0 * n] = __vadd2(x, y);
    o[1 * n] = __vadd4(x, y);
    o[2 * n] = __vsub2(x, y);
    o[3 * n] = __vsub4(x, y);
    o[4 * n] = __vaddss2(x, y);
    o[5 * n] = __vaddus4(x, y);
    o[6 * n] = __vabsdiffu4(x, y);
    o[7 * n] = __vavgu4(x, y);
    o[8 * n] = __vhaddu2(x, y);
    o[9 * n] = __vcmpgtu4(x, y);
    o[10 * n] = __vcmpeq2(x, y);
    o[11 * n] = __vmaxs2(x, y);
    o[12 * n] = __vminu4(x, y);
    o[13 * n] = __vneg4(x);
    o[14 * n] = __vabsss4(x);
    o[15 * n] = __vsadu4(x, y);
    o[16 * n] = __sad((int)x, (int)y, 7u);
    o[17 * n] = __usad(x, y, 0xfffffff0u);
    o[18 * n] = (unsigned)__hadd((int)x, (int)y);
    o[19 * n] = (unsigned)__rhadd((int)x, (int)y);
    o[20 * n] = __uhadd(x, y);
    o[21 * n] = __urhadd(x, y);
    o[22 * n] = (unsigned)__dp4a((int)x, (int)y, (int)i);
    o[23 * n] = __dp4a(x, y, 5u);
    o[24 * n] = (unsigned)__dp2a_lo((int)x, (int)y, -1000);
    o[25 * n] = (unsigned)__dp2a_hi((int)x, (int)y, 1000);
}
