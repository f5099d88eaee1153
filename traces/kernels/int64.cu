// int64: 64-bit integer arithmetic, which sm_35 builds from 32-bit halves with
// carries (.CC/.X), 64-bit compares, shifts across the halves, high products,
// and a called 64-bit division routine. Per element, with x = in[i] (u64),
// y = in[(i + 1) % n] | 1, out holds 8 u64:
//   0 x * 0x9e3779b97f4a7c15 + y          1 x / y        2 x % 1000003
//   3 (long long)x >> (y & 63)           4 __umul64hi(x, y)
//   5 (u64)__mul64hi((long long)x, -(long long)y)
//   6 __popcll(x) | __clzll(x) << 8 | __ffsll(x) << 16 | (x < y) << 24
//     | ((long long)x < (long long)y) << 25
//   7 __brevll(x) ^ (x << (y & 63)) ^ (x >> 3)
extern "C" __global__ void int64(int n, const unsigned long long *__restrict__ in, unsigned long long *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = in[i];
    unsigned long long y = in[(i + 1) % n] | 1;
    unsigned long long *o = out + 8 * i;
    o[0] = x * 0x9e3779b97f4a7c15ull + y;
    o[1] = x / y;
    o[2] = x % 1000003ull;
    o[3] = (unsigned long long)((long long)x >> (y & 63));
    o[4] = __umul64hi(x, y);
    o[5] = (unsigned long long)__mul64hi((long long)x, -(long long)y);
    o[6] = (unsigned long long)__popcll(x) | (unsigned long long)__clzll(x) << 8 |
           (unsigned long long)__ffsll(x) << 16 | (unsigned long long)(x < y) << 24 |
           (unsigned long long)((long long)x < (long long)y) << 25;
    o[7] = __brevll(x) ^ (x << (y & 63)) ^ (x >> 3);
}
