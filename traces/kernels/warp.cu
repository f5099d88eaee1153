// warp: warp-wide votes and shuffles, and the integer bit intrinsics, all exact.
// One thread per element, blocks of whole warps, n a multiple of the block size.
// With x = in[i], lane = i % 32 (blocks hold whole warps), full = 0xffffffff:
//   o[0] = __ballot_sync(full, x & 1)
//   o[1] = __all_sync(full, x != 0) | __any_sync(full, x < 0x1000) << 1
//   o[2] = __shfl_sync(full, x, x & 31)        (SHFL.IDX, a lane chosen by data)
//   o[3] = __shfl_up_sync(full, x, 3)          (lanes < 3 keep their own x)
//   o[4] = __shfl_xor_sync(full, x, 5)         (SHFL.BFLY)
//   o[5] = __popc(x) | __clz(x) << 8 | __ffs(x) << 16
//   o[6] = __brev(x)
//   o[7] = __byte_perm(x, lane, 0x5140)
//   o[8] = __funnelshift_l(x, lane, x & 31)  o[9] = __funnelshift_r(lane, x, x >> 27)
//   o[10] = __umulhi(x, 0x9e3779b9)          o[11] = (unsigned)__mulhi((int)x, -7)
//   o[12] = (unsigned)min((int)x, (int)lane - 16)   o[13] = max(x, 0x80000000u)
//   o[14] = (x >> (lane & 7)) & 0x3ff (a bitfield) | ((x >> 3) & 7) << 16
//   o[15] = (unsigned)((int)x >> (lane & 15)) + __sad((int)x, (int)lane, 0)
// out holds 16 words per element.
extern "C" __global__ void warp(const unsigned *__restrict__ in, unsigned *out)
{
    const unsigned full = 0xffffffffu;
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    const unsigned x = in[i];
    unsigned *o = out + 16 * i;
    o[0] = __ballot_sync(full, x & 1);
    o[1] = (unsigned)__all_sync(full, x != 0) | (unsigned)__any_sync(full, x < 0x1000) << 1;
    o[2] = __shfl_sync(full, x, x & 31);
    o[3] = __shfl_up_sync(full, x, 3);
    o[4] = __shfl_xor_sync(full, x, 5);
    o[5] = __popc(x) | __clz(x) << 8 | __ffs(x) << 16;
    o[6] = __brev(x);
    o[7] = __byte_perm(x, lane, 0x5140);
    o[8] = __funnelshift_l(x, lane, x & 31);
    o[9] = __funnelshift_r(lane, x, x >> 27);
    o[10] = __umulhi(x, 0x9e3779b9u);
    o[11] = (unsigned)__mulhi((int)x, -7);
    o[12] = (unsigned)min((int)x, (int)lane - 16);
    o[13] = max(x, 0x80000000u);
    o[14] = ((x >> (lane & 7)) & 0x3ffu) | ((x >> 3) & 7u) << 16;
    o[15] = (unsigned)((int)x >> (lane & 15)) + __sad((int)x, (int)lane, 0u);
}
