// Vector-heavy code: swizzles (xyzw, rgba-free numeric .sN, .lo/.hi/.even/.odd),
// saturating rounding conversions, as_* reinterpretation, vload/vstore, select/bitselect,
// shuffle/shuffle2, relational builtins on vectors.
__kernel void swizzles(__global float4 *a, __global float8 *b, __global int16 *c)
{
    size_t i = get_global_id(0);
    float4 v = a[i];
    v.xy = v.yx;
    v.zw = v.xx * 2.0f;
    float8 w = (float8)(v, v.wzyx);
    w.s0123 = w.s7654;
    w.even = w.odd + 1.0f;
    float4 lo = w.lo, hi = w.hi;
    b[i] = (float8)(lo * hi, hi - lo);
    int16 k = c[i];
    k.sF = k.s0 + k.sa + k.SB;
    k.s89ab = k.lo.hi;
    c[i] = k;
    a[i] = (float4)(v.x, v.yz, w.s3);
}

__kernel void conversions(__global const float4 *f, __global uchar4 *u8, __global short8 *s16,
                          __global int4 *i32, __global uint2 *bits)
{
    size_t i = get_global_id(0);
    float4 x = f[i] * 255.0f;
    u8[i] = convert_uchar4_sat_rte(x);
    s16[i] = (short8)(convert_short4_sat_rtz(x * 1000.0f), convert_short4_sat_rtp(-x));
    i32[i] = convert_int4_rtn(x) + convert_int4(as_uint4(f[i]) >> 31);
    float2 y = f[i].xy;
    bits[i] = as_uint2(y) ^ as_uint2((int2)(-1, 0));
    uchar16 raw = as_uchar16(f[i]);
    i32[i].w += raw.s3 + convert_int(raw.sF);
}

__kernel void load_store(__global const float *src, __global float *dst, __global const ushort *h,
                         const uint n)
{
    uint i = get_global_id(0);
    if (i * 8 + 7 >= n)
        return;
    float8 v = vload8(i, src);
    float3 t = vload3(0, src + i * 8 + 1);
    v.s123 += t;
    vstore8(v, i, dst);
    float4 q = vload4(1, src + i * 8);
    vstore3(q.xyz, i, dst + n);
    vstore2(q.zw, 0, dst + i * 2);
    (void)h;
}

__kernel void selection(__global const float4 *a, __global const float4 *b, __global float4 *out,
                        __global uint4 *mask_out)
{
    size_t i = get_global_id(0);
    float4 x = a[i], y = b[i];
    int4 lt = isless(x, y);
    float4 mn = select(y, x, lt);
    float4 clamped = select(x, (float4)(0.0f), isnan(x));
    uint4 bs = bitselect(as_uint4(x), as_uint4(y), (uint4)(0x80000000u));
    out[i] = mn + clamped + as_float4(bs);
    mask_out[i] = (uint4)(any(lt), all(lt), signbit(x).x != 0, isfinite(y).w != 0);
}

__kernel void shuffles(__global const uint4 *a, __global const uint8 *b, __global uint4 *out,
                       __global uchar16 *bytes)
{
    size_t i = get_global_id(0);
    uint4 mask = (uint4)(3, 2, 1, 0);
    uint4 r = shuffle(a[i], mask);
    uint4 r2 = shuffle2(a[i], a[i] * 2u, (uint4)(0, 4, 1, 5));
    uint4 r3 = shuffle(b[i], (uint4)(7, 0, 6, 1));
    out[i] = r + r2 + r3;
    uchar16 src = bytes[i];
    bytes[i] = shuffle(src, (uchar16)(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
}

__kernel void integer_vectors(__global int4 *x, __global uchar8 *y)
{
    size_t i = get_global_id(0);
    int4 v = x[i];
    int4 m = v >> 2 | v << 30;
    m = clamp(m, -100, 100) + (int)abs_diff(v, m).x + (int4)(popcount(v.x));
    m = rotate(m, (int4)(1, 2, 3, 4)) + mad24(v, v, m) + hadd(v, m) + clz(v);
    x[i] = m & ~(int4)(0xF) ^ (m != v);
    uchar8 c = y[i];
    y[i] = add_sat(c, (uchar8)(200)) - sub_sat(c, (uchar8)(7)) + rhadd(c, c.s76543210);
    y[i].s7 = max(c.s0, (uchar)upsample((uchar)1, (uchar)2));
}
