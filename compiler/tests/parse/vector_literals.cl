// Vector literals, casts of parenthesized expressions, and the comma operator.
typedef float4 myvec;
typedef myvec othervec;
typedef int myint;

kernel void v(global float4 *out, float a, float b, float c, float d, global int *p)
{
    float4 v1 = (float4)(a, b, c, d);          // vector literal
    float4 v2 = (float4)(a);                   // one element: splat
    float4 v3 = (float4)((float2)(a, b), c, d);
    float8 v4 = (float8)(v1, (float4)(1.0f, 2.0f, 3.0f, 4.0f));
    float x = (float4)(a, b, c, d).x;          // .x applies to the vector literal
    float2 lo = (float4)(a).lo;
    myvec v5 = (myvec)(a, b, c, d);            // a typedef of a vector type
    float y = (othervec)(a).y;
    int i = (int)(a, b);                       // a cast of a comma expression (sema decides)
    int j = (int)(a);
    int k = (int)(p)[0];                       // C: [0] applies to (p), then the cast
    int m = (myint)(p)[1];
    int n = (int)(a) + 1;
    int o = (a, b, 3);                         // comma operator
    float z = (float)(int)a;
    out[0] = v1 + (float4)(0.5f) * (float4)(a, b, c, d).wzyx;
    uint4 u = (uint4)(1, 2, 3, 4) + (uint4)(i);
    long8 l = (long8)(0);
    float4 w = (const float4)(a, b, c, d);
}
