// Stencils: 1D radius 3 with a shared-memory halo, 2D 5-point.

#define RADIUS 3
#define SBLOCK 128

// out[i] = sum_{k=-3..3} in[i+k], out-of-range taken as 0. Block size SBLOCK.
__global__ void stencil1d(float *out, const float *in, int n)
{
    __shared__ float temp[SBLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = (g < n) ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS;
        int right = g + SBLOCK;
        temp[l - RADIUS] = (left >= 0 && left < n) ? in[left] : 0.0f;
        temp[l + SBLOCK] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float result = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; k++)
            result += temp[l + k];
        out[g] = result;
    }
}

// Interior points: out = c * in[y][x] + (north + south + west + east); border: out = in.
// The multiply-add is contracted to fma.rn.f32.
__global__ void stencil2d(float *out, const float *in, int w, int h, float c)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
        return;
    }
    float nb = in[i - w] + in[i + w] + in[i - 1] + in[i + 1];
    out[i] = c * in[i] + nb;
}
