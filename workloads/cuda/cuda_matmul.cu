// Tiled matrix product C = A B (A: m x k, B: k x n, C: m x n, row-major), 16x16 thread blocks and 16x16
// shared tiles: each element of A and B is read from global memory n/16 (resp. m/16) times instead of n
// (resp. m). Global loads: a half-warp reads 64 contiguous bytes of one tile row, so a warp-wide load is
// 1 request touching 2 rows = 4 sectors. Out-of-range tile elements are loaded as 0.

#define TILE 16

extern "C" __global__ void matmul_tiled16(const float *A, const float *B, float *C, int m, int n, int k)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        As[ty][tx] = (row < m && t + tx < k) ? A[row * k + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < k && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; j++)
            acc += As[ty][j] * Bs[j][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        C[row * n + col] = acc;
}
