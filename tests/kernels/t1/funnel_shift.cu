// Funnel shifts (__funnelshift_l/r wrap the shift amount mod 32, _lc/_rc clamp it to 32) with
// variable amounts across the full 32-bit range and in 0..39, and with constant amounts; 32-bit
// rotates through funnel shifts; 64-bit rotates written with plain shifts.

extern "C" __global__ void funnel(const unsigned* lo, const unsigned* hi, const unsigned* sh,
                                  unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned l = lo[i], h = hi[i], s = sh[i], s2 = sh[i] % 40u;
    unsigned* o = out + i;
    o[0 * n] = __funnelshift_l(l, h, s);
    o[1 * n] = __funnelshift_r(l, h, s);
    o[2 * n] = __funnelshift_lc(l, h, s);
    o[3 * n] = __funnelshift_rc(l, h, s);
    o[4 * n] = __funnelshift_l(l, h, s2);
    o[5 * n] = __funnelshift_r(l, h, s2);
    o[6 * n] = __funnelshift_lc(l, h, s2);
    o[7 * n] = __funnelshift_rc(l, h, s2);
    o[8 * n] = __funnelshift_l(l, h, 0);
    o[9 * n] = __funnelshift_l(l, h, 13);
    o[10 * n] = __funnelshift_r(l, h, 31);
    o[11 * n] = __funnelshift_lc(l, h, 32);
    o[12 * n] = __funnelshift_rc(l, h, 40);
    o[13 * n] = __funnelshift_r(l, h, 32);
    o[14 * n] = __funnelshift_l(l, l, s2);
    o[15 * n] = __funnelshift_r(h, h, 7);
}

extern "C" __global__ void rotate64(const unsigned long long* a, const unsigned* sh,
                                    unsigned long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i];
    unsigned s = sh[i] & 63u;
    unsigned long long* o = out + i;
    o[0 * n] = (x << s) | (x >> ((64u - s) & 63u));
    o[1 * n] = (x >> s) | (x << ((64u - s) & 63u));
    o[2 * n] = (x << 17) | (x >> 47);
    o[3 * n] = (x << 32) | (x >> 32);
    o[4 * n] = (x >> 45) | (x << 19);
    o[5 * n] = (x << 1) | (x >> 63);
}
