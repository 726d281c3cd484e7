// vloadn / vstoren and the half conversions.
kernel void k(global float *data, global half *h, int n) {
    size_t i = get_global_id(0);
    float3 v = vload3(i, data);
    vstore3(v * 2.0f, i + n, data);
    float4 w = vload_half4(i, h);
    vstore_half4_rtz(w + v.x, i, h);
}
