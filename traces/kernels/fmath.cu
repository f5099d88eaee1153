// fmath: single-precision library math, as compiled by default (no fast math):
//   s[i] = sinf(x[i])          within 2 ulp (CUDA's documented bound); for
//                              |x| > 105615 sinf takes its slow path (Payne-Hanek
//                              reduction through a local array);
//   e[i] = expf(y[i])          within 2 ulp;
//   q[i] = sqrtf(fabsf(x[i]))  correctly rounded (-prec-sqrt=true by default);
//   d[i] = x[i] / y[i]         correctly rounded (-prec-div=true by default).
extern "C" __global__ void fmath(int n, const float *__restrict__ x, const float *__restrict__ y, float *s,
                                 float *e, float *q, float *d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i], b = y[i];
    s[i] = sinf(a);
    e[i] = expf(b);
    q[i] = sqrtf(fabsf(a));
    d[i] = a / b;
}
