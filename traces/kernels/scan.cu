// scan: exclusive prefix sums of 32-bit integers (wrapping), one segment of
// 2*blockDim.x elements per block, by Blelloch's work-efficient up-sweep and
// down-sweep in shared memory. out[i] = sum of in[j] for segment start <= j < i;
// sums[b] = the total of segment b. Integer addition makes the result independent
// of the order, so the reference is a plain running sum.
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) scan(const unsigned *in, unsigned *out, unsigned *sums)
{
    __shared__ unsigned s[2 * BLOCK];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 2 * BLOCK;
    s[t] = in[base + t];
    s[t + BLOCK] = in[base + t + BLOCK];
    unsigned offset = 1;
    for (unsigned d = BLOCK; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            unsigned ai = offset * (2 * t + 1) - 1;
            unsigned bi = offset * (2 * t + 2) - 1;
            s[bi] += s[ai];
        }
        offset <<= 1;
    }
    if (t == 0) {
        sums[blockIdx.x] = s[2 * BLOCK - 1];
        s[2 * BLOCK - 1] = 0;
    }
    for (unsigned d = 1; d <= BLOCK; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            unsigned ai = offset * (2 * t + 1) - 1;
            unsigned bi = offset * (2 * t + 2) - 1;
            unsigned x = s[ai];
            s[ai] = s[bi];
            s[bi] += x;
        }
    }
    __syncthreads();
    out[base + t] = s[t];
    out[base + t + BLOCK] = s[t + BLOCK];
}
