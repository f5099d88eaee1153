// call: a device function that is called, not inlined (__noinline__), so the SASS
// has CAL and RET; it is called from two places under a divergent branch and runs
// a data-dependent loop.
//   mix(x, r): r rounds of x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15;
//              x *= 0x846ca68b; x ^= x >> 16 (32-bit, wrapping).
//   out[i] = mix(odd(x) ? mix(x, x & 7) : mix(x ^ 0xdeadbeef, 3), 1) for x = in[i].
__device__ __noinline__ unsigned mix(unsigned x, unsigned rounds)
{
    for (unsigned r = 0; r < rounds; ++r) {
        x ^= x >> 16;
        x *= 0x7feb352du;
        x ^= x >> 15;
        x *= 0x846ca68bu;
        x ^= x >> 16;
    }
    return x;
}

extern "C" __global__ void call(const unsigned *__restrict__ in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = in[i];
    if (x & 1)
        x = mix(x, x & 7);
    else
        x = mix(x ^ 0xdeadbeefu, 3);
    out[i] = mix(x, 1);
}
