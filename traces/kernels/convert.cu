// convert: conversions in every rounding mode, float min/max, saturation,
// rounding to integral values, and additions and products in the directed
// rounding modes -- all exactly defined, so the reference is bit-exact.
// Per element, with x, y, w floats, k an int, d a double, out holds 32 words:
//   0..3   __float2int_rn/_rz/_rd/_ru(y)      4 __float2int_rz(x) (saturates)
//   5      __float2uint_rn(x) (saturates; negative -> 0)
//   6..9   __int2float_rn/_rz/_rd/_ru(k)      10 __uint2float_rn((unsigned)k)
//   11..14 __double2float_rn/_rz/_rd/_ru(d)   15 __double2int_rz(d)
//   16..17 __float2ll_rz(x) (low word first)
//   18 fminf(x, y)  19 fmaxf(x, y)  20 __saturatef(y * 0.01f)
//   21 floorf(y)  22 ceilf(y)  23 truncf(y)  24 rintf(y)  25 roundf(y)
//   26..28 __fadd_rd/_ru/_rz(y, w)  29..31 __fmul_rd/_ru/_rz(y, w)
// (float results as their bits).
extern "C" __global__ void convert(int n, const float *__restrict__ xs, const float *__restrict__ ys,
                                   const float *__restrict__ ws, const int *__restrict__ ks,
                                   const double *__restrict__ ds, unsigned *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = xs[i], y = ys[i], w = ws[i];
    int k = ks[i];
    double d = ds[i];
    unsigned *o = out + 32 * i;
    o[0] = __float2int_rn(y);
    o[1] = __float2int_rz(y);
    o[2] = __float2int_rd(y);
    o[3] = __float2int_ru(y);
    o[4] = __float2int_rz(x);
    o[5] = __float2uint_rn(x);
    o[6] = __float_as_uint(__int2float_rn(k));
    o[7] = __float_as_uint(__int2float_rz(k));
    o[8] = __float_as_uint(__int2float_rd(k));
    o[9] = __float_as_uint(__int2float_ru(k));
    o[10] = __float_as_uint(__uint2float_rn((unsigned)k));
    o[11] = __float_as_uint(__double2float_rn(d));
    o[12] = __float_as_uint(__double2float_rz(d));
    o[13] = __float_as_uint(__double2float_rd(d));
    o[14] = __float_as_uint(__double2float_ru(d));
    o[15] = __double2int_rz(d);
    long long l = __float2ll_rz(x);
    o[16] = (unsigned)l;
    o[17] = (unsigned)(l >> 32);
    o[18] = __float_as_uint(fminf(x, y));
    o[19] = __float_as_uint(fmaxf(x, y));
    o[20] = __float_as_uint(__saturatef(y * 0.01f));
    o[21] = __float_as_uint(floorf(y));
    o[22] = __float_as_uint(ceilf(y));
    o[23] = __float_as_uint(truncf(y));
    o[24] = __float_as_uint(rintf(y));
    o[25] = __float_as_uint(roundf(y));
    o[26] = __float_as_uint(__fadd_rd(y, w));
    o[27] = __float_as_uint(__fadd_ru(y, w));
    o[28] = __float_as_uint(__fadd_rz(y, w));
    o[29] = __float_as_uint(__fmul_rd(y, w));
    o[30] = __float_as_uint(__fmul_ru(y, w));
    o[31] = __float_as_uint(__fmul_rz(y, w));
}
