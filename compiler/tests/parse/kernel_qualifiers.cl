// Every qualifier a kernel and its helpers can carry, in both spellings.
__kernel void add(__global const float *a, global const float *b,
                  __global float *restrict out, const uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[i] = a[i] + b[i];
}

kernel void images(__read_only image2d_t src, write_only image2d_t dst,
                   read_write image3d_t vol, __write_only image1d_buffer_t buf,
                   sampler_t smp)
{
}

__kernel void spaces(__local int *l, local float4 *l2, __constant int *c,
                     constant float *c2, __private int p, private int q)
{
    __local int tile[64];
    local float sums[16];
    __private int x = p + q;
    volatile int v = 0;
    const volatile __global int *gp = 0;
    int *restrict rp = 0;
}

__constant float scale = 2.0f;
constant int table[4] = {1, 2, 3, 4};

static inline int helper(int x) { return x * 2; }
inline float twice(float x) { return x + x; }
extern int external_counter;
typedef unsigned int u32;

void storage(void)
{
    auto int a = 1;
    register int b = 2;
    static int c;
}
