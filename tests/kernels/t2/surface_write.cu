// Surface objects: surf2Dwrite of floats and uchar4 (SUST.D.BA.2D), surf3Dwrite of bytes
// (SUST.D.BA.3D.U8), surf2DLayeredwrite and surf1Dwrite of float4 (SUST ... .128) with the
// trap boundary mode, surf2Dwrite with cudaBoundaryModeZero out of range (SUST ... .IGN) and
// surf2Dread (SULD.D.BA.2D). Surfaces are described in surface_write.json.

extern "C" __global__ void write_2d(cudaSurfaceObject_t s, const float* in, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite<float>(__fmul_rn(in[y * w + x], 2.0f), s, x * 4, y);
}

extern "C" __global__ void write_2d_rgba(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite<uchar4>(make_uchar4(x, y, x ^ y, 255 - x), s, x * 4, y);
}

extern "C" __global__ void write_3d_u8(cudaSurfaceObject_t s) {
  int x = threadIdx.x % 8, y = threadIdx.x / 8, z = blockIdx.x;
  surf3Dwrite<unsigned char>((unsigned char)(x * 16 + y * 4 + z * 3 + 1), s, x, y, z);
}

extern "C" __global__ void write_layered_f4(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x % 3, layer = blockIdx.x / 3;
  float4 v = make_float4(x, y, layer, x + 10 * y + 100 * layer);
  surf2DLayeredwrite<float4>(v, s, x * 16, y, layer);
}

extern "C" __global__ void write_1d_f4(cudaSurfaceObject_t s, const float4* in) {
  int x = threadIdx.x;
  surf1Dwrite<float4>(in[x], s, (31 - x) * 16);
}

extern "C" __global__ void write_2d_zero(cudaSurfaceObject_t s, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  // the block is wider than the surface: stores past its right edge are dropped
  surf2Dwrite<int>(y * 1000 + x, s, x * 4, y, cudaBoundaryModeZero);
}

extern "C" __global__ void read_2d(cudaSurfaceObject_t s, int* out, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * blockDim.x + x] = surf2Dread<int>(s, ((x * 5) % w) * 4, y) + x;
}
