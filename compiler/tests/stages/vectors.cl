// Vector literals, swizzles, lane assignments, vector comparisons and ?: on vectors.
kernel void k(global float4 *out, global const float4 *in, float s) {
    size_t i = get_global_id(0);
    float4 a = in[i];
    float4 b = (float4)(a.xy, s, 1.0f);
    b.wz = a.yx;
    int4 m = a > b;
    float4 c = m ? a : b * s;
    float2 h = c.hi + c.lo;
    out[i] = (float4)(h, c.s3, dot(a, b));
}
