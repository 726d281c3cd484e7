// for headers: declarations, expressions, empty parts, comma expressions.
kernel void loops(global int *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = i;
    for (uint i = 0, j = n; i < j; ++i, --j)
        out[i] = out[j];
    int k;
    for (k = 0; k < n; k += 2) { }
    for (; k > 0;) k--;
    for (;;) { break; }
    for (const int step = 4; k < n; k += step) ;
    for (local int *p = 0; p; p = 0) ;
    for (float4 v = (float4)(0.0f); v.x < 1.0f; v.x += 0.5f) ;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            out[a * 2 + b] = a + b;
}
