// Monte Carlo estimate of pi with xorshift128 per work-item and a local-atomic hit count.
typedef struct {
    uint x, y, z, w;
} xorshift128_t;

inline uint xorshift128_next(xorshift128_t *s)
{
    uint t = s->x ^ (s->x << 11);
    s->x = s->y;
    s->y = s->z;
    s->z = s->w;
    s->w = s->w ^ (s->w >> 19) ^ (t ^ (t >> 8));
    return s->w;
}

inline float to_unit_float(uint r)
{
    return (r >> 8) * 0x1.0p-24f;
}

__kernel void mc_pi(const uint seed, const uint samples_per_item, __global uint *hits_per_group,
                    __local uint *hits)
{
    uint gid = get_global_id(0);
    xorshift128_t st = { seed ^ 123456789u, 362436069u + gid * 0x9E3779B9u, 521288629u, 88675123u ^ gid };
    for (int i = 0; i < 8; ++i)
        (void)xorshift128_next(&st);
    if (get_local_id(0) == 0)
        *hits = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint inside = 0;
    for (uint i = 0; i < samples_per_item; ++i) {
        float x = to_unit_float(xorshift128_next(&st));
        float y = to_unit_float(xorshift128_next(&st));
        inside += (x * x + y * y <= 1.0f);
    }
    atomic_add(hits, inside);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        hits_per_group[get_group_id(0)] = *hits;
}
