// special: the special registers and launch constants, in a 3-D grid of 3-D
// blocks, and dynamic shared memory. Thread g (linear over the grid: block index
// x-fastest, then thread index x-fastest) writes 17 words to out[17g..]:
//   0..2 threadIdx.x/y/z   3..5 blockIdx.x/y/z   6..8 blockDim   9..11 gridDim
//   12 %laneid (= linear thread index in the block % 32)
//   13 the linear index of the thread mirrored in the block (nt - 1 - t), read
//      back through dynamic shared memory, where each thread stored its own
//   14 1 if two clock64() readings with work between them increase
//   15 1 if %smid < %nsmid and %warpid < 64 (the most warps a Kepler SM holds)
//   16 the work between the clock readings: x = in[g], then (in[g] & 7) times
//      x = 3x + 1 (wrapping)
extern "C" __global__ void special(const unsigned *__restrict__ in, unsigned *out)
{
    extern __shared__ unsigned dyn[];
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned g = b * nt + t;
    long long c0 = clock64();
    dyn[t] = t;
    __syncthreads();
    unsigned mirrored = dyn[nt - 1 - t];
    unsigned laneid, smid, nsmid, warpid;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(laneid));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    unsigned work = in[g];
    const unsigned rounds = work & 7;
    for (unsigned k = 0; k < rounds; ++k)
        work = work * 3 + 1;
    long long c1 = clock64();
    unsigned *o = out + 17 * g;
    o[0] = threadIdx.x;
    o[1] = threadIdx.y;
    o[2] = threadIdx.z;
    o[3] = blockIdx.x;
    o[4] = blockIdx.y;
    o[5] = blockIdx.z;
    o[6] = blockDim.x;
    o[7] = blockDim.y;
    o[8] = blockDim.z;
    o[9] = gridDim.x;
    o[10] = gridDim.y;
    o[11] = gridDim.z;
    o[12] = laneid;
    o[13] = mirrored;
    o[14] = c1 > c0;
    o[15] = smid < nsmid && warpid < 64;
    o[16] = work;
}
