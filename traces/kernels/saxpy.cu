// saxpy: y[i] = a * x[i] + y[i] for i < n. One thread per element.
// SASS: one FFMA per element (the reference uses f32::mul_add).
extern "C" __global__ void saxpy(int n, float a, const float *__restrict__ x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
