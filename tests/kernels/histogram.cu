// Histograms of unsigned byte-ish values into NBINS bins.

#define NBINS 64

// Per-block shared histogram with shared atomics, then merged with global atomicAdd.
__global__ void hist_shared(unsigned *hist, const unsigned *data, int n)
{
    __shared__ unsigned local[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % NBINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
}

// Global atomics only.
__global__ void hist_global(unsigned *hist, const unsigned *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&hist[data[i] % NBINS], 1u);
}
