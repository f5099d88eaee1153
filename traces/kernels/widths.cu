// widths: every load and store width in every space ptxas uses from plain C:
// generic loads (LD.E.U8/S8/U16/S16/32/64/128) from `in`, read-only loads (LDG)
// from `ro` (the same buffer), shared stores and loads of every width, a
// __constant__ table indexed at run time (LDC), and generic stores of every width.
// Each thread owns a 16-byte input record and a 32-byte output record; blocks of
// BLOCK threads (n, the number of records, a multiple of BLOCK).
#ifndef BLOCK
#define BLOCK 128
#endif

#define T(j) ((unsigned)(j) * 2654435761u ^ 0x5bd1e995u)
#define T4(j) T(j), T(j + 1), T(j + 2), T(j + 3)
#define T16(j) T4(j), T4(j + 4), T4(j + 8), T4(j + 12)
__constant__ unsigned table[64] = {T16(0), T16(16), T16(32), T16(48)};

extern "C" __global__ void __launch_bounds__(BLOCK) widths(const unsigned char *in, const uint4 *__restrict__ ro,
                                                           unsigned char *out)
{
    __shared__ uint4 sq[BLOCK];
    __shared__ unsigned long long sd[BLOCK];
    __shared__ unsigned short sh[BLOCK];
    __shared__ unsigned char sb[BLOCK];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * BLOCK + t;
    const unsigned char *r = in + 16 * i;

    unsigned char b = r[0];
    signed char c = ((const signed char *)r)[1];
    unsigned short h = ((const unsigned short *)r)[1];
    short s = ((const short *)r)[2];
    unsigned w = ((const unsigned *)r)[2];
    unsigned long long d = ((const unsigned long long *)r)[1];
    uint4 q = ro[i];

    sq[t] = q;
    sd[t] = d;
    sh[t] = h;
    sb[t] = b;
    __syncthreads();
    const unsigned u = (t + 1) % BLOCK;  // the next thread's record
    unsigned char nb = ((const unsigned char *)&sq[u])[3];
    short ns = ((const short *)&sq[u])[3];
    unsigned long long nd = sd[u];
    unsigned nh = sh[u];
    unsigned nbb = sb[u];
    uint4 nq = sq[u];

    unsigned char *o = out + 32 * i;
    o[0] = (unsigned char)(b + nb);
    o[1] = (unsigned char)(c * 3);
    ((short *)o)[1] = (short)(s - ns);
    ((unsigned *)o)[1] = (unsigned)c + h + w + nh + nbb + table[w & 63];
    ((unsigned long long *)o)[1] = d * 3 + nd + table[(w >> 8) & 63];
    ((uint4 *)o)[1] = make_uint4(q.w ^ nq.x, q.z + table[b & 63], q.y, q.x);
}
