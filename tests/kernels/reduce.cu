// Reductions. Block size 256 (a power of two) for the shared-memory trees.

#define RBLOCK 256

// Interleaved addressing (modulo test, bank conflicts); one partial sum per block.
__global__ void reduce_interleaved(float *out, const float *in, int n)
{
    __shared__ float sdata[RBLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Sequential addressing (no bank conflicts); one partial sum per block.
__global__ void reduce_sequential(float *out, const float *in, int n)
{
    __shared__ float sdata[RBLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Warp-shuffle tree per warp, then one float atomicAdd per warp into *total.
__global__ void reduce_warp_shuffle(float *total, float *warp_sums, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) {
        warp_sums[i >> 5] = v;
        atomicAdd(total, v);
    }
}
