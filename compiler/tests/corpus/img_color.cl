// Colour space conversions and tone mapping on packed pixels.
__constant float3 RGB_TO_Y = (float3)(0.2126f, 0.7152f, 0.0722f);

__kernel void rgba_to_gray(__global const uchar4 *in, __global uchar *out, uint n)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    float4 c = convert_float4(in[i]) * (1.0f / 255.0f);
    float y = dot(c.xyz, RGB_TO_Y);
    out[i] = convert_uchar_sat_rte(y * 255.0f);
}

__kernel void rgb_to_hsv(__global const float4 *in, __global float4 *out)
{
    size_t i = get_global_id(0);
    float4 c = in[i];
    float mx = fmax(c.x, fmax(c.y, c.z));
    float mn = fmin(c.x, fmin(c.y, c.z));
    float d = mx - mn;
    float h = 0.0f;
    if (d > 0.0f) {
        if (mx == c.x)
            h = fmod((c.y - c.z) / d, 6.0f);
        else if (mx == c.y)
            h = (c.z - c.x) / d + 2.0f;
        else
            h = (c.x - c.y) / d + 4.0f;
        h *= 60.0f;
        if (h < 0.0f)
            h += 360.0f;
    }
    float s = mx > 0.0f ? d / mx : 0.0f;
    out[i] = (float4)(h, s, mx, c.w);
}

__kernel void reinhard_tonemap(__global const float4 *hdr, __global uchar4 *ldr,
                               float exposure, float gamma)
{
    size_t i = get_global_id(0);
    float4 c = hdr[i] * exposure;
    float3 mapped = c.xyz / (1.0f + c.xyz);
    mapped = pow(mapped, (float3)(1.0f / gamma));
    ldr[i] = convert_uchar4_sat_rte((float4)(mapped, clamp(c.w, 0.0f, 1.0f)) * 255.0f);
}
