// Texture objects: tex1Dfetch over linear memory (TLD.LZ 1D), tex2D with point and linear
// filtering, clamp/border/wrap/mirror addressing and normalized coordinates, normalized-float
// reads of uchar4 texels, tex3D, tex2DLayered and texCubemap (TEX.LL 2D/3D/ARRAY_2D/CUBE).
// The texture descriptions are in texture_fetch.json; texture_fetch.py is the reference.

extern "C" __global__ void fetch_linear(cudaTextureObject_t t, float2* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float2>(t, i - 8);  // 8 fetches below and above the range
}

// coordinates on a lattice of 1/16 texel plus an offset, some outside the texture
__device__ __forceinline__ float coord(int i, float scale, float off) {
  return __fmaf_rn((float)i, scale, off);
}

extern "C" __global__ void fetch_2d(cudaTextureObject_t t, float* out, float sx, float ox,
                                    float sy, float oy) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * blockDim.x + x] = tex2D<float>(t, coord(x, sx, ox), coord(y, sy, oy));
}

extern "C" __global__ void fetch_2d_rgba(cudaTextureObject_t t, float4* out, float sx, float ox,
                                         float sy, float oy) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * blockDim.x + x] = tex2D<float4>(t, coord(x, sx, ox), coord(y, sy, oy));
}

extern "C" __global__ void fetch_2d_int(cudaTextureObject_t t, int4* out) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * blockDim.x + x] = tex2D<int4>(t, x - 2, y - 1);
}

extern "C" __global__ void fetch_3d(cudaTextureObject_t t, float* out, float s, float o) {
  int x = threadIdx.x % 8, y = threadIdx.x / 8, z = blockIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      tex3D<float>(t, coord(x, s, o), coord(y, s, o + 0.25f), coord(z, s, o - 0.5f));
}

extern "C" __global__ void fetch_layered(cudaTextureObject_t t, float* out, float s, float o) {
  int x = threadIdx.x, y = blockIdx.x % 4, layer = blockIdx.x / 4;
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      tex2DLayered<float>(t, coord(x, s, o), coord(y, s, o), layer);
}

extern "C" __global__ void fetch_cube(cudaTextureObject_t t, float* out, const float* dirs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = texCubemap<float>(t, dirs[3 * i], dirs[3 * i + 1], dirs[3 * i + 2]);
}
