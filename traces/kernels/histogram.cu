// histogram: 256 bins of the bytes of `data`. Each block counts into a private
// histogram in shared memory with shared atomics (on sm_35 a LDSLK/STSCUL retry
// loop), over a grid-stride loop, then adds its non-zero bins to the global
// histogram with global atomics (ATOM, whose old value is used, and RED).
// bins[0..256] are the counts, added to what `bins` held; bins[256] counts the
// bins that went from 0 to non-zero (exactly one block sees the old value 0, in
// any block order).
extern "C" __global__ void histogram(const unsigned char *__restrict__ data, int n, unsigned *bins)
{
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned c = local[b];
        if (c != 0 && atomicAdd(&bins[b], c) == 0)
            atomicAdd(&bins[256], 1u);
    }
}
