// keplersim: nvrtc-options -use_fast_math
// Precise division (FCHK.DIVIDE and its slow path) unless compiled with
// -use_fast_math, which the line above asks for.
extern "C" __global__ void division(const float *a, const float *b, float *q) {
    int i = threadIdx.x;
    q[i] = a[i] / b[i];
}
