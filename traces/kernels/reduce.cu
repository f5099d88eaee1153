// reduce: per-block float sums with a fully defined order, so a CPU reference
// reproduces them bit for bit.
//   1. thread t of block b adds in[i] for i = b*BLOCK + t, then i += gridDim.x*BLOCK
//      (grid-stride, in increasing i), starting from 0.0f;
//   2. a tree in shared memory: for s = BLOCK/2 down to 32, s[t] = s[t] + s[t+s];
//   3. the first warp finishes with __shfl_down_sync: v = v + shfl_down(v, d) for
//      d = 16, 8, 4, 2, 1;
//   4. lane 0 writes partial[blockIdx.x].
// BLOCK (the block size, a power of two >= 64) is fixed at compile time.
// With FENCE=1 (NVIDIA's threadFenceReduction pattern) the kernel also takes
// `total` and `count` (which must start at 0): thread 0 of each block makes its
// partial visible (__threadfence), takes a ticket with atomicInc(count,
// gridDim.x - 1), and the block that draws the last ticket adds partial[0],
// partial[1], ... in index order, from 0.0f, into total[0]; count wraps back to
// 0. Whichever block finishes last, the sum is the same.
#ifndef FENCE
#define FENCE 0
#endif
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) reduce(const float *__restrict__ in, float *partial, int n
#if FENCE
                                                            , float *total, unsigned *count
#endif
)
{
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK)
        acc = acc + in[i];
    s[t] = acc;
    __syncthreads();
#pragma unroll
    for (unsigned w = BLOCK / 2; w >= 32; w >>= 1) {
        if (t < w)
            s[t] = s[t] + s[t + w];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t];
#pragma unroll
        for (int d = 16; d >= 1; d >>= 1)
            v = v + __shfl_down_sync(0xffffffffu, v, d);
        if (t == 0)
            partial[blockIdx.x] = v;
    }
#if FENCE
    __shared__ bool last;
    if (t == 0) {
        __threadfence();
        last = atomicInc(count, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && t == 0) {
        float sum = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b)
            sum += ((volatile float *)partial)[b];
        total[0] = sum;
    }
#endif
}
