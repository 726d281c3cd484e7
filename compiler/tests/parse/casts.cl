// Casts to every kind of type name, and what is not a cast.
typedef int T;
struct S { int a; };

kernel void k(global float *f, global void *vp, int x, int y)
{
    global int *ip = (global int *)vp;
    local float *lp = (__local float *)0;
    const global char *cp = (const global char *)f;
    float a = (float)x;
    int b = (int)f[0];
    uint c = (uint)(x + y);
    T d = (T)a;
    int e = (x) + y;          // not a cast: x is a variable
    int g = (x)-y;
    struct S *sp = (struct S *)vp;
    int (*arr)[4] = (int (*)[4])vp;
    unsigned long ul = (unsigned long)x;
    float4 v = (float4)(x);
    void *pv = (void *)0;
    (void)x;
    (void)(x, y);
    size_t s = (size_t)y;
    long z = (long)(short)(char)x;
    int w = (int)+x - (int)-y;
}
