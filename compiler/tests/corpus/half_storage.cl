// Half-precision storage without cl_khr_fp16: vload_half/vstore_half(_rte)/vloada_half
// converting to float for arithmetic.
__kernel void half_axpy(__global const half *x, __global half *y, const float a, const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        float xv = vload_half(i, x);
        float yv = vload_half(i, y);
        vstore_half_rte(mad(a, xv, yv), i, y);
    }
}

__kernel void half4_scale(__global half *buf, const float s)
{
    size_t i = get_global_id(0);
    float4 v = vload_half4(i, buf);
    vstore_half4_rtz(v * s, i, buf);
}

__kernel void half_to_float(__global const half *in, __global float *out)
{
    size_t i = get_global_id(0);
    float8 v = vload_half8(i, in);
    vstore8(v, i, out);
    float4 a = vloada_half4(i, in);
    out[i] += a.x;
}
