// dmath: double precision: DFMA, DMUL, DADD and a correctly rounded division.
//   a = x[i], b = y[i];
//   h = Horner: h = 0.5; h = fma(h, a, -0.25); h = fma(h, a, 0.125); h = fma(h, a, c)
//   p = a * a (__dmul_rn: never fused); s = h + p (__dadd_rn);
//   out[i] = s / (b + 3.0)   (IEEE division, round to nearest).
extern "C" __global__ void dmath(int n, const double *__restrict__ x, const double *__restrict__ y, double c,
                                 double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = x[i], b = y[i];
    double h = 0.5;
    h = fma(h, a, -0.25);
    h = fma(h, a, 0.125);
    h = fma(h, a, c);
    double p = __dmul_rn(a, a);
    double s = __dadd_rn(h, p);
    out[i] = s / __dadd_rn(b, 3.0);
}
