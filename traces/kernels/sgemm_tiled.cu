// sgemm_tiled: C = alpha * A * B + beta * C, column-major (BLAS "NN"), tiled in
// shared memory with a register tile per thread, as in the 2021 profiling study.
// A block of BX x BY threads computes a (BX*TM) x (BY*TN) tile of C; thread
// (tx, ty) owns rows tx + BX*a (a < TM) and columns ty + BY*b (b < TN) of it, so
// each thread keeps TM*TN accumulators in registers. Each step stages a
// (BX*TM) x BK slice of A and a BK x (BY*TN) slice of B in shared memory.
// m must be a multiple of BX*TM, n of BY*TN, k of BK.
// Every accumulator sums A(i,p) * B(p,j) with FFMA in increasing p, from 0.0f;
// the result is alpha * acc + beta * C(i,j).
// Variants (scripts/build-kernels.sh): -DTM=1 -DTN=1, 2x2, 4x4, 8x8, all 16x16.
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 16
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#ifndef BK
#define BK 16
#endif

#define BM (BX * TM)
#define BN (BY * TN)
#define NT (BX * BY)

extern "C" __global__ void __launch_bounds__(NT) sgemm_tiled(int m, int n, int k, float alpha,
                                                              const float *__restrict__ A, int lda,
                                                              const float *__restrict__ B, int ldb,
                                                              float beta, float *C, int ldc)
{
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = tx + BX * ty;
    const int bm0 = blockIdx.x * BM, bn0 = blockIdx.y * BN;

    float acc[TM][TN];
#pragma unroll
    for (int a = 0; a < TM; ++a)
#pragma unroll
        for (int b = 0; b < TN; ++b)
            acc[a][b] = 0.0f;

    for (int p0 = 0; p0 < k; p0 += BK) {
#pragma unroll
        for (int e = tid; e < BM * BK; e += NT)
            As[e / BM][e % BM] = A[bm0 + e % BM + (p0 + e / BM) * lda];
#pragma unroll
        for (int e = tid; e < BK * BN; e += NT)
            Bs[e % BK][e / BK] = B[p0 + e % BK + (bn0 + e / BK) * ldb];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int a = 0; a < TM; ++a)
                ra[a] = As[kk][tx + BX * a];
#pragma unroll
            for (int b = 0; b < TN; ++b)
                rb[b] = Bs[kk][ty + BY * b];
#pragma unroll
            for (int a = 0; a < TM; ++a)
#pragma unroll
                for (int b = 0; b < TN; ++b)
                    acc[a][b] += ra[a] * rb[b];
        }
        __syncthreads();
    }
#pragma unroll
    for (int a = 0; a < TM; ++a)
#pragma unroll
        for (int b = 0; b < TN; ++b) {
            float *c = &C[bm0 + tx + BX * a + (bn0 + ty + BY * b) * ldc];
            *c = alpha * acc[a][b] + beta * *c;
        }
}
