// sizeof and vec_step, of types and of expressions.
struct S { int a; };
typedef float4 F4;

kernel void k(global uint *out, float4 v, int x)
{
    out[0] = sizeof(int);
    out[1] = sizeof x;
    out[2] = sizeof(x);
    out[3] = sizeof(struct S);
    out[4] = sizeof(global int *);
    out[5] = sizeof(int[4]);
    out[6] = sizeof v.x;
    out[7] = sizeof(x) + 1;
    out[8] = sizeof (x + 1);
    out[9] = sizeof(F4);
    out[10] = vec_step(float4);
    out[11] = vec_step(v);
    out[12] = vec_step v;
    out[13] = vec_step(F4) * vec_step(uchar16);
    out[14] = sizeof sizeof x;
    out[15] = sizeof(unsigned long);
    out[16] = sizeof -x;
    out[17] = sizeof(const volatile int);
}
