// Parameter lists: void, empty, variadic, abstract, named.
void no_params(void);
void unspecified();
int printf(constant char *restrict format, ...);
int sum(int count, ...);
void unnamed(int, float, global int *);
void mixed(int a, float, global int *p);
float4 vectors(float4 a, uint2 b, double16 c, half8 h);
void images(read_only image2d_t img, sampler_t s, event_t e);
kernel void defined(global int *out, int n)
{
    out[0] = sum(2, n, n);
    printf("%d\n", n);
}
