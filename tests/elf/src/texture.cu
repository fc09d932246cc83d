// Texture and surface objects (bindless: 64-bit handles passed as parameters).
extern "C" {
__global__ void tex_kernel(float *out, cudaTextureObject_t t, cudaSurfaceObject_t s, int n) {
    int i = threadIdx.x;
    float v = tex1Dfetch<float>(t, i) + tex2D<float>(t, i * 0.5f, 0.25f);
    surf2Dwrite(v, s, i * 4, 0);
    out[i] = v + surf2Dread<float>(s, (n - i) * 4, 1);
}
}
