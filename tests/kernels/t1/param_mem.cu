// Kernel parameters: scalars of every width (8/16/32/64-bit signed and unsigned, float) at their
// natural alignments after a pointer, and a kernel with 24 int parameters plus a 64-bit one at the
// end of the parameter block (ld.param at large offsets).

extern "C" __global__ void param_mix(long long* out, const int* in, signed char c, unsigned char uc,
                                     short s, unsigned short us, int i32, unsigned u32,
                                     long long i64, unsigned long long u64, float f)
{
    int t = threadIdx.x;
    long long x = in[t];
    unsigned long long acc = (unsigned long long)x * (unsigned long long)(long long)c;
    acc += (unsigned long long)(long long)(uc * s);
    acc ^= (unsigned long long)us << 20;
    acc += (unsigned long long)(long long)i32 * (unsigned long long)(t + 1);
    acc -= u32;
    acc += (unsigned long long)i64 >> (t & 63);
    acc ^= u64 * (unsigned long long)(t | 1);
    acc += (unsigned long long)(long long)__float_as_int(f);
    out[t] = (long long)acc;
    out[64 + t] = (long long)__fmul_rn(f, (float)t);
}

extern "C" __global__ void param_many(unsigned* out, int p0, int p1, int p2, int p3, int p4,
                                      int p5, int p6, int p7, int p8, int p9, int p10, int p11,
                                      int p12, int p13, int p14, int p15, int p16, int p17,
                                      int p18, int p19, int p20, int p21, int p22, int p23,
                                      unsigned long long last)
{
    unsigned h = 2166136261u;
    h = (h ^ (unsigned)p0) * 16777619u;
    h = (h ^ (unsigned)p1) * 16777619u;
    h = (h ^ (unsigned)p2) * 16777619u;
    h = (h ^ (unsigned)p3) * 16777619u;
    h = (h ^ (unsigned)p4) * 16777619u;
    h = (h ^ (unsigned)p5) * 16777619u;
    h = (h ^ (unsigned)p6) * 16777619u;
    h = (h ^ (unsigned)p7) * 16777619u;
    h = (h ^ (unsigned)p8) * 16777619u;
    h = (h ^ (unsigned)p9) * 16777619u;
    h = (h ^ (unsigned)p10) * 16777619u;
    h = (h ^ (unsigned)p11) * 16777619u;
    h = (h ^ (unsigned)p12) * 16777619u;
    h = (h ^ (unsigned)p13) * 16777619u;
    h = (h ^ (unsigned)p14) * 16777619u;
    h = (h ^ (unsigned)p15) * 16777619u;
    h = (h ^ (unsigned)p16) * 16777619u;
    h = (h ^ (unsigned)p17) * 16777619u;
    h = (h ^ (unsigned)p18) * 16777619u;
    h = (h ^ (unsigned)p19) * 16777619u;
    h = (h ^ (unsigned)p20) * 16777619u;
    h = (h ^ (unsigned)p21) * 16777619u;
    h = (h ^ (unsigned)p22) * 16777619u;
    h = (h ^ (unsigned)p23) * 16777619u;
    int t = threadIdx.x;
    out[t] = h + (unsigned)t * (unsigned)p7 + (unsigned)(last >> (t & 63));
}
