// loops: data-dependent loops with break and continue, so warps diverge inside
// loops and leave them at different iterations.
//   1. Collatz: from x = in[i], while x > 1 and fewer than `limit` steps: an odd x
//      becomes 3x + 1 (wrapping; counted in `odd`, then continue), an even x is
//      halved. out[2i] = steps | odd << 16.
//   2. A window of data-dependent length: over in[(i + j) % n] for
//      j < (in[i] & 63) + 1, skip values divisible by 3 (continue), stop at the
//      first value above `cut` (break), sum the rest (wrapping). out[2i + 1] = the
//      sum.
extern "C" __global__ void loops(const unsigned *__restrict__ in, unsigned *out, int n, unsigned limit,
                                 unsigned cut)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = in[i];
    unsigned steps = 0, odd = 0;
    for (;;) {
        if (x <= 1)
            break;
        if (steps >= limit)
            break;
        ++steps;
        if (x & 1) {
            x = 3 * x + 1;
            ++odd;
            continue;
        }
        x >>= 1;
    }
    unsigned sum = 0;
    const unsigned len = (in[i] & 63) + 1;
#pragma unroll 1
    for (unsigned j = 0; j < len; ++j) {
        unsigned v = in[(i + j) % n];
        if (v % 3 == 0)
            continue;
        if (v > cut)
            break;
        sum += v;
    }
    out[2 * i] = steps | odd << 16;
    out[2 * i + 1] = sum;
}
