// local_array: a per-thread array indexed with run-time values, which ptxas must
// place in local memory (STL/LDL).
//   x = in[i]; buf[j] = x = x * 1664525 + 1013904223 for j < 32 (wrapping);
//   then 16 times: k = x >> 27; acc += buf[k]; buf[(k + acc) & 31] ^= acc;
//   x = x * 22695477 + 1. out[i] = acc.
extern "C" __global__ void local_array(const unsigned *__restrict__ in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned buf[32];
    unsigned x = in[i];
    for (int j = 0; j < 32; ++j) {
        x = x * 1664525u + 1013904223u;
        buf[j] = x;
    }
    unsigned acc = 0;
    for (int j = 0; j < 16; ++j) {
        unsigned k = x >> 27;
        acc += buf[k];
        buf[(k + acc) & 31] ^= acc;
        x = x * 22695477u + 1u;
    }
    out[i] = acc;
}
