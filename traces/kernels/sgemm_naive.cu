// sgemm_naive: C = alpha * A * B + beta * C, column-major (BLAS "NN"): A is m x k
// with leading dimension lda, B is k x n (ldb), C is m x n (ldc). One thread per
// element of C; the k loop accumulates A(i,p) * B(p,j) with FFMA in increasing p,
// from 0.0f; the result is alpha * acc + beta * C(i,j).
extern "C" __global__ void sgemm_naive(int m, int n, int k, float alpha,
                                       const float *__restrict__ A, int lda,
                                       const float *__restrict__ B, int ldb,
                                       float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n) {
        float acc = 0.0f;
        for (int p = 0; p < k; ++p)
            acc += A[i + p * lda] * B[p + j * ldb];
        C[i + j * ldc] = alpha * acc + beta * C[i + j * ldc];
    }
}
