// Bytes in the work-item vectorizer: each uchar plane is one 4-byte load widened to i32x4
// (uwiden_low twice), the int-to-float promotions are one conversion, convert_uchar_sat one
// saturating conversion and a clamp, and the 4 results one byte shuffle and a 4-byte store;
// the masked add_sat on shorts blends whole registers.
kernel void gray(global const uchar *r, global const uchar *g, global const uchar *b,
                 global uchar *out) {
    int i = get_global_id(0);
    out[i] = convert_uchar_sat(0.299f * r[i] + 0.587f * g[i] + 0.114f * b[i] + 0.5f);
}
kernel void shorts(global const short *a, global short *out) {
    int i = get_global_id(0);
    short x = a[i];
    if (x > 0) x = add_sat(x, (short)30000);
    out[i] = x;
}
