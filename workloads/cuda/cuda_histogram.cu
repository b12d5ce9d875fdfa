// 256-bin byte histogram: each block counts a grid-stride slice of the bytes into a shared-memory histogram
// with shared atomics, then adds its 256 counts to the global histogram with one global atomic per bin.
// Byte loads: a warp reads 32 contiguous bytes, 1 request and 1 sector.

#define NBINS 256

extern "C" __global__ void hist256_shared(unsigned *hist, const unsigned char *data, int n)
{
    __shared__ unsigned local[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
}
