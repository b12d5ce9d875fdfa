// Warp vote and shuffle intrinsics. Launch with whole warps (blockDim.x a multiple of 32).

// out[4*i+0] = ballot(v odd), +1 = any(v > thr), +2 = all(v > -thr) , +3 = activemask (full)
__global__ void warp_vote_uniform(unsigned *out, const int *in, int thr)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned b = __ballot_sync(0xffffffffu, v & 1);
    int an = __any_sync(0xffffffffu, v > thr);
    int al = __all_sync(0xffffffffu, v > -thr);
    unsigned m = __activemask();
    out[4 * i + 0] = b;
    out[4 * i + 1] = an;
    out[4 * i + 2] = al;
    out[4 * i + 3] = m;
}

// Votes inside divergent code: odd lanes and even lanes run different branches.
// out[2*i+0] = activemask in the branch, out[2*i+1] = ballot over the branch's lanes.
__global__ void warp_vote_divergent(unsigned *out, const int *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    unsigned m, b;
    if (lane & 1) {
        m = __activemask();
        b = __ballot_sync(0xaaaaaaaau, v > 0);
    } else {
        m = __activemask();
        b = __ballot_sync(0x55555555u, v < 0);
    }
    out[2 * i + 0] = m;
    out[2 * i + 1] = b;
}

// Shuffles with width < 32. out has 4 values per thread.
__global__ void warp_shfl_width(int *out, const int *in, int src, int delta, int mask)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    out[4 * i + 0] = __shfl_sync(0xffffffffu, v, src, 8);         // src may exceed width: taken mod 8
    out[4 * i + 1] = __shfl_up_sync(0xffffffffu, v, delta, 16);
    out[4 * i + 2] = __shfl_down_sync(0xffffffffu, v, delta, 4);
    out[4 * i + 3] = __shfl_xor_sync(0xffffffffu, v, mask, 16);
}

// Full-width shuffles of floats: broadcast from lane src, rotate by one, butterfly sum.
__global__ void warp_shfl_full(float *out, const float *in, int src)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = in[i];
    float bc = __shfl_sync(0xffffffffu, v, src);
    float rot = __shfl_sync(0xffffffffu, v, (lane + 1) & 31);
    float s = v;
    for (int m = 1; m < 32; m <<= 1)
        s += __shfl_xor_sync(0xffffffffu, s, m);
    out[3 * i + 0] = bc;
    out[3 * i + 1] = rot;
    out[3 * i + 2] = s;
}
