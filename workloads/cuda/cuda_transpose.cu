// Matrix transpose (in: rows x cols, row-major; out: cols x rows), after NVIDIA's "An Efficient Matrix
// Transpose in CUDA C/C++": 32x32 tiles, 32x8 thread blocks, each thread moving 4 elements.

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Naive: reads coalesced (1 request, 4 sectors per warp), writes strided by `rows` floats
// (1 request, 32 sectors per warp: uncoalesced).
extern "C" __global__ void transpose_naive(float *out, const float *in, int rows, int cols)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;    // column of in
    int y = blockIdx.y * TILE_DIM + threadIdx.y;    // row of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            out[x * rows + y + j] = in[(y + j) * cols + x];
}

// Shared tile padded to 33 columns: global reads and writes both coalesced (4 sectors per request), and
// the column-wise shared reads fall in 32 different banks (no bank conflicts).
extern "C" __global__ void transpose_padded(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;        // column of out (= row of in)
    y = blockIdx.x * TILE_DIM + threadIdx.y;        // row of out (= column of in)
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols)
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
