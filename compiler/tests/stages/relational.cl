// Relational builtins: vector masks, select, any/all.
kernel void k(global int4 *out, global const float4 *in) {
    size_t i = get_global_id(0);
    float4 x = in[i];
    int4 nan = isnan(x);
    int4 big = isgreater(x, (float4)(1.0f));
    float4 y = select(x, (float4)(0.0f), nan);
    out[i] = (int4)(any(nan), all(big), signbit(y.x), islessgreater(y.y, y.z)) | bitselect(nan, big, (int4)(3));
}
