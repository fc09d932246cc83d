// f64 <-> integer and f64 <-> f32 conversions in every rounding mode (saturating), and the
// hi/lo word accessors.
extern "C" __global__ void f64_convert(const double* a, const long long* l, int* oi,
                                       unsigned* ou, long long* oll, unsigned long long* oull,
                                       double* od, float* of, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i] * 1e9;          // some beyond int32
    double big = a[i] * 1e18;       // some beyond int64
    long long kl = l[i];
    unsigned long long kul = (unsigned long long)kl;

    oi[0 * n + i] = __double2int_rn(x);
    oi[1 * n + i] = __double2int_rz(x);
    oi[2 * n + i] = __double2int_rd(x);
    oi[3 * n + i] = __double2int_ru(x);
    oi[4 * n + i] = __double2hiint(a[i]);
    oi[5 * n + i] = __double2loint(a[i]);
    ou[0 * n + i] = __double2uint_rn(x);
    ou[1 * n + i] = __double2uint_rz(x);
    ou[2 * n + i] = __double2uint_rd(x);
    ou[3 * n + i] = __double2uint_ru(x);
    oll[0 * n + i] = __double2ll_rn(big);
    oll[1 * n + i] = __double2ll_rz(big);
    oll[2 * n + i] = __double2ll_rd(big);
    oll[3 * n + i] = __double2ll_ru(big);
    oll[4 * n + i] = __double_as_longlong(x);
    oull[0 * n + i] = __double2ull_rn(big);
    oull[1 * n + i] = __double2ull_rz(big);
    oull[2 * n + i] = __double2ull_rd(big);
    oull[3 * n + i] = __double2ull_ru(big);

    od[0 * n + i] = __ll2double_rn(kl);
    od[1 * n + i] = __ll2double_rz(kl);
    od[2 * n + i] = __ll2double_rd(kl);
    od[3 * n + i] = __ll2double_ru(kl);
    od[4 * n + i] = __ull2double_rn(kul);
    od[5 * n + i] = __ull2double_rz(kul);
    od[6 * n + i] = __ull2double_rd(kul);
    od[7 * n + i] = __ull2double_ru(kul);
    od[8 * n + i] = __int2double_rn((int)kl);                        // exact
    od[9 * n + i] = __uint2double_rn((unsigned)(kl >> 32));          // exact
    od[10 * n + i] = __hiloint2double((int)(kl >> 32) & 0x800fffff | 0x3ff00000, (int)kl);
    od[11 * n + i] = (double)__double2float_rn(a[i]);

    double t = a[i] * 1e-40;         // subnormal or tiny in f32
    double h = a[i] * 1e38;          // some overflow f32
    of[0 * n + i] = __double2float_rn(a[i]);
    of[1 * n + i] = __double2float_rz(a[i]);
    of[2 * n + i] = __double2float_rd(a[i]);
    of[3 * n + i] = __double2float_ru(a[i]);
    of[4 * n + i] = __double2float_rn(t);
    of[5 * n + i] = __double2float_rz(t);
    of[6 * n + i] = __double2float_rd(t);
    of[7 * n + i] = __double2float_ru(t);
    of[8 * n + i] = __double2float_rn(h);
    of[9 * n + i] = __double2float_rz(h);
    of[10 * n + i] = __double2float_rd(h);
    of[11 * n + i] = __double2float_ru(h);
}
