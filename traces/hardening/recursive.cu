// A recursive kernel: ptxas cannot bound its stack and writes 0xffffffff as
// its minimum stack size; the CUDA driver gives it its default 1 KiB stack.
// out[i] = fib(i % 16) through a call chain as deep as i % 16.
__device__ int fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}

extern "C" __global__ void recursive(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fib(i % 16);
}
