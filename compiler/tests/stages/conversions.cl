// Explicit conversions with saturation and rounding, reinterpretation, implicit ones.
kernel void k(global int *out, global const float *in, global uchar4 *bytes) {
    size_t i = get_global_id(0);
    float x = in[i];
    int a = convert_int_sat_rte(x);
    uint b = as_uint(x);
    uchar4 c = convert_uchar4_sat((float4)(x, -x, x * 300.0f, 0.5f));
    short s = (short)x;
    bytes[i] = c;
    out[i] = a + (int)b + s;
}
