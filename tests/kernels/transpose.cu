// Matrix transpose: naive, 32x32 shared tile, padded 32x33 shared tile with 32x8 blocks.
// in is rows x cols (row-major); out is cols x rows.

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive(float *out, const float *in, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column of in
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row of in
    if (x < cols && y < rows)
        out[x * rows + y] = in[y * cols + x];
}

// Block 32x32 threads, one element per thread.
__global__ void transpose_tiled32(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;   // column of out (= row of in)
    y = blockIdx.x * TILE_DIM + threadIdx.y;   // row of out (= column of in)
    if (x < rows && y < cols)
        out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

// Block 32x8 threads, each thread moves 4 elements; the tile is padded to 33 columns.
__global__ void transpose_padded(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols)
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
