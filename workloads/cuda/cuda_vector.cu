// Vector add with a grid-stride loop: a fixed grid (a few blocks per SM) walks the whole array, so one
// launch configuration serves any n. Each warp-iteration reads 2 x 128 contiguous bytes and writes 128:
// 1 request and 4 sectors per warp-wide access (fully coalesced).

extern "C" __global__ void vec_add_grid_stride(const float *a, const float *b, float *c, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}
