// Global loads and stores of every integer width: ld.global.s8/u8/s16/u16/u32/u64 with their sign
// or zero extension, and st.global.u8/u16/u32/u64 of narrowed values to adjacent bytes.

extern "C" __global__ void load_widths(const signed char* s8, const unsigned char* u8,
                                       const short* s16, const unsigned short* u16,
                                       const long long* s64, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int* o = out + i;
    o[0 * n] = s8[i];
    o[1 * n] = u8[i];
    o[2 * n] = s16[i];
    o[3 * n] = u16[i];
    o[4 * n] = (int)(s64[i] >> 17);
    o[5 * n] = s8[i] * u8[i] + s16[i] - u16[i];
    o[6 * n] = s8[n - 1 - i] + s8[(i * 7) % n];
}

extern "C" __global__ void store_widths(const int* a, signed char* o8, short* o16,
                                        unsigned char* ou8, long long* o64, unsigned short* ou16,
                                        int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int x = a[i];
    o8[i] = (signed char)x;
    o16[i] = (short)(x >> 3);
    ou8[2 * i] = (unsigned char)(x & 0xff);
    ou8[2 * i + 1] = (unsigned char)((unsigned)x >> 24);
    o64[i] = x;
    ou16[3 * i] = (unsigned short)x;
    ou16[3 * i + 1] = (unsigned short)(x >> 16);
    ou16[3 * i + 2] = (unsigned short)(i * 3);
}
