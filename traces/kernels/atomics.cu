// atomics: global and shared atomics whose final values do not depend on the
// order threads reach them. Thread i with x = in[i] and bucket b = x % 64 does:
//   g[b]:       atomicMin (signed), atomicMax (unsigned), atomicAnd, atomicOr,
//               atomicXor on words 0..4 of bucket b (g holds 8 words per bucket),
//               atomicAdd of x & 0xffff on word 5, and on word 6 an increment
//               made with an atomicCAS retry loop;
//   sum64[b]:   atomicAdd of (u64)x << 8 (64-bit)
//   fsum[b]:    atomicAdd of (float)(x & 1023) (exact: the sums stay below 2^24)
//   in shared:  s[x % 32] += 1 and a 64-bit shared atomicAdd, then each block
//               adds its shared counts into cnt[0..32] and cnt64[0..32].
// The launch file sets every word 0..6 of g to the identity of its operation.
extern "C" __global__ void atomics(const unsigned *__restrict__ in, unsigned *g, unsigned long long *sum64,
                                   float *fsum, unsigned *cnt, unsigned long long *cnt64, int n)
{
    __shared__ unsigned s[32];
    __shared__ unsigned long long s64[32];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 32) {
        s[threadIdx.x] = 0;
        s64[threadIdx.x] = 0;
    }
    __syncthreads();
    if (i < n) {
        const unsigned x = in[i];
        unsigned *w = g + 8 * (x % 64);
        atomicMin((int *)&w[0], (int)x);
        atomicMax(&w[1], x);
        atomicAnd(&w[2], x);
        atomicOr(&w[3], x);
        atomicXor(&w[4], x);
        atomicAdd(&w[5], x & 0xffffu);
        unsigned old = w[6], seen;
        while ((seen = atomicCAS(&w[6], old, old + 1)) != old)
            old = seen;
        atomicAdd(&sum64[x % 64], (unsigned long long)x << 8);
        atomicAdd(&fsum[x % 64], (float)(x & 1023));
        atomicAdd(&s[x % 32], 1u);
        atomicAdd(&s64[x % 32], (unsigned long long)x);
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        atomicAdd(&cnt[threadIdx.x], s[threadIdx.x]);
        atomicAdd(&cnt64[threadIdx.x], s64[threadIdx.x]);
    }
}
