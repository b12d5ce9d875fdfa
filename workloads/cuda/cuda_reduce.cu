// Sum reduction with warp shuffles: each thread accumulates a grid-stride slice (coalesced loads, 4 sectors
// per request), each warp folds its 32 values with __shfl_down_sync (registers only, no shared memory), the
// per-warp sums meet in a 32-float shared array and the first warp folds those. One partial sum per block
// (out[blockIdx.x]); the host or a second launch adds the partials. Block size: a multiple of 32, <= 1024.

__device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

extern "C" __global__ void reduce_shfl(float *out, const float *in, int n)
{
    __shared__ float warp_sums[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    v = warp_sum(v);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < (blockDim.x >> 5)) ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
