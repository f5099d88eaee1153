// sgemm_volkov: Volkov and Demmel's outer-product SGEMM (SC'08, "Benchmarking GPUs
// to tune dense linear algebra"), C = alpha * A * B + beta * C, column-major
// (BLAS "NN"). Blocks of 16 x 4 = 64 threads each compute a 64 x 16 tile of C:
// thread id = x + 16*y owns row id of the tile and keeps its 16 outputs in
// registers. Each step stages a 16 x 16 block of B in shared memory (padded to 17),
// while A is read straight into registers, one value per k, and multiplied into
// all 16 accumulators (a rank-1 update). Unlike the original, A is not prefetched
// past the last column. m must be a multiple of 64, n and k of 16.
// Every output sums A(i,p) * B(p,j) with FFMA in increasing p, from 0.0f; the
// result is alpha * acc + beta * C(i,j).

__device__ __forceinline__ void rank1(float a, const float *b, float *c)
{
#pragma unroll
    for (int j = 0; j < 16; ++j)
        c[j] += a * b[j];
}

extern "C" __global__ void __launch_bounds__(64) sgemm_volkov(int m, int n, int k, float alpha,
                                                              const float *__restrict__ A, int lda,
                                                              const float *__restrict__ B, int ldb,
                                                              float beta, float *C, int ldc)
{
    __shared__ float bs[16][17];
    const int inx = threadIdx.x;
    const int iny = threadIdx.y;
    const int ibx = blockIdx.x * 64;
    const int iby = blockIdx.y * 16;
    const int id = inx + iny * 16;

    A += ibx + id;
    B += inx + (iby + iny) * ldb;
    C += ibx + id + iby * ldc;
    const float *Blast = B + k;

    float c[16];
#pragma unroll
    for (int j = 0; j < 16; ++j)
        c[j] = 0.0f;

    do {
        bs[inx][iny] = B[0 * ldb];
        bs[inx][iny + 4] = B[4 * ldb];
        bs[inx][iny + 8] = B[8 * ldb];
        bs[inx][iny + 12] = B[12 * ldb];
        __syncthreads();
#pragma unroll
        for (int q = 0; q < 16; q += 4) {
            float a[4] = {A[0 * lda], A[1 * lda], A[2 * lda], A[3 * lda]};
            A += 4 * lda;
            rank1(a[0], &bs[q + 0][0], c);
            rank1(a[1], &bs[q + 1][0], c);
            rank1(a[2], &bs[q + 2][0], c);
            rank1(a[3], &bs[q + 3][0], c);
        }
        B += 16;
        __syncthreads();
    } while (B < Blast);

#pragma unroll
    for (int j = 0; j < 16; ++j, C += ldc)
        C[0] = alpha * c[j] + beta * C[0];
}
