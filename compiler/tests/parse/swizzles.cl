// Member access: struct fields and vector swizzles are the same syntax here.
struct S { float4 v; struct S *next; };

kernel void sw(global float4 *out, global struct S *s, float8 e, float16 f)
{
    float4 a = out[0];
    float x = a.x;
    float2 xy = a.xy;
    float4 wzyx = a.wzyx;
    float3 rgb = a.rgb;
    float2 s01 = a.s01;
    float4 hi = e.hi;
    float4 lo = e.lo;
    float4 odd = e.odd;
    float4 even = e.even;
    float8 sf = f.s0123456789abcdef.lo;
    float16 big = f.S0123456789ABCDEF;
    a.xy = a.yx;
    a.s3 = 1.0f;
    out[1] = s->v;
    out[2].w = s->next->v.z;
    out[3] = s[0].next[1].v.xxyy;
    e.hi.lo.x = 2.0f;
}
