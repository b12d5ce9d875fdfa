// Elementwise kernels: vector add, saxpy, strided/offset copies, grid-stride loop.

__global__ void vec_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// a * x[i] + y[i] is contracted to fma.rn.f32 by nvcc (default -fmad=true).
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// out[i] = in[i * stride], i < n
__global__ void copy_stride(float *out, const float *in, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[(long long)i * stride];
}

// out[i] = in[i + offset], i < n
__global__ void copy_offset(float *out, const float *in, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + offset];
}

// out[i] = 3 * in[i] - i over a grid smaller than n (grid-stride loop).
__global__ void grid_stride_scale(int *out, const int *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 3 * in[i] - i;
}
