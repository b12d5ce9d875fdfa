// Launch-shape and synchronization features: 2D grid with 3D blocks, dynamic shared memory, bar.red.

// Grid (gx, gy), block (bx, by, bz): out[linear id] = packed (block, thread) coordinates.
__global__ void grid2d_block3d(int *out, int w)
{
    int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    int bx = blockIdx.x, by = blockIdx.y;
    int tpb = blockDim.x * blockDim.y * blockDim.z;
    int t = (tz * blockDim.y + ty) * blockDim.x + tx;
    int b = by * gridDim.x + bx;
    int id = b * tpb + t;
    out[2 * id + 0] = (bx << 24) | (by << 16) | (tz << 8) | (ty << 4) | tx;
    out[2 * id + 1] = id * w + (int)(gridDim.y * 100 + blockDim.z);
}

// Dynamic shared memory: reverse each block's segment in place (blockDim.x elements).
__global__ void dyn_shared_reverse(float *data, int n)
{
    extern __shared__ float s[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    if (base + t < n)
        s[t] = data[base + t];
    __syncthreads();
    int src = blockDim.x - 1 - t;
    if (base + t < n && base + src < n)
        data[base + t] = s[src];
}

// __syncthreads_count / _and / _or on a data predicate; one result triple per block.
__global__ void sync_reduce(int *out, const int *in, int thr)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int c = __syncthreads_count(v > thr);
    int a = __syncthreads_and(v > -thr);
    int o = __syncthreads_or(v == thr);
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x + 0] = c;
        out[3 * blockIdx.x + 1] = a;
        out[3 * blockIdx.x + 2] = o;
    }
}
