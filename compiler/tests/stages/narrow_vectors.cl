// Vectors of char/short across work-items (simd/narrow_vec.rs): RGBA pixels to gray and a
// threshold, brightness/contrast with a saturating conversion, an int8 dot product.
kernel void gray_threshold(global const uchar4 *in, global uchar *gray, global uchar4 *thr,
                           uchar t) {
    int i = get_global_id(0);
    uchar4 p = in[i];
    uchar g = convert_uchar_sat(0.299f * p.x + 0.587f * p.y + 0.114f * p.z + 0.5f);
    gray[i] = g;
    thr[i] = g > t ? (uchar4)(255, 255, 255, p.w) : (uchar4)(0, 0, 0, p.w);
}

kernel void brightness(global const uchar4 *in, global uchar4 *out, float gain, float bias) {
    int i = get_global_id(0);
    out[i] = convert_uchar4_sat(convert_float4(in[i]) * gain + bias);
}

kernel void dot_char4(global const char4 *a, global const char4 *b, global int *out) {
    int i = get_global_id(0);
    int4 p = convert_int4(a[i]) * convert_int4(b[i]);
    out[i] = p.x + p.y + p.z + p.w;
}
