// transpose: out (cols x rows) = in (rows x cols)^T, both row-major, through a
// TILE x TILE tile in shared memory (NVIDIA's "coalesced transpose"). Blocks of
// TILE x ROWS threads; each thread moves TILE/ROWS elements. rows and cols must be
// multiples of TILE. PAD=1 pads each shared row by one word, which removes the
// bank conflicts of the column-wise read; PAD=0 keeps them.
#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif
#ifndef PAD
#define PAD 1
#endif

extern "C" __global__ void transpose(const float *__restrict__ in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
