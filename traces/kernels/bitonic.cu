// bitonic: each block sorts its segment of 2*BLOCK floats ascending, in shared
// memory, with Batcher's bitonic sorting network: for every stage size k = 2, 4,
// ..., 2*BLOCK and every distance j = k/2, ..., 1, thread t compare-exchanges the
// pair (i, i + j) with i = 2t - (t mod j), ascending where (i & k) == 0. Keys must
// not be NaN.
#ifndef BLOCK
#define BLOCK 512
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) bitonic(float *keys)
{
    __shared__ float s[2 * BLOCK];
    const unsigned t = threadIdx.x;
    float *seg = keys + blockIdx.x * 2 * BLOCK;
    s[t] = seg[t];
    s[t + BLOCK] = seg[t + BLOCK];
    for (unsigned k = 2; k <= 2 * BLOCK; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            __syncthreads();
            unsigned i = 2 * t - (t & (j - 1));
            bool up = (i & k) == 0;
            float a = s[i], b = s[i + j];
            if ((a > b) == up) {
                s[i] = b;
                s[i + j] = a;
            }
        }
    }
    __syncthreads();
    seg[t] = s[t];
    seg[t + BLOCK] = s[t + BLOCK];
}
