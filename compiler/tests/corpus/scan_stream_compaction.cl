// Stream compaction: predicate flags, exclusive scan of flags (per group, serial
// group-offsets pass), then scatter of the surviving elements.
typedef struct {
    float x, y, z;
    int id;
} particle_t;

__kernel void flag_alive(__global const particle_t *p, __global uint *flags, float radius2, uint n)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    particle_t q = p[i];
    flags[i] = (q.x * q.x + q.y * q.y + q.z * q.z <= radius2 && q.id >= 0) ? 1u : 0u;
}

__kernel void local_scan(__global const uint *flags, __global uint *offsets,
                         __global uint *group_totals, __local uint *s, uint n)
{
    uint lid = get_local_id(0), gid = get_global_id(0), lsz = get_local_size(0);
    uint v = gid < n ? flags[gid] : 0;
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < lsz; off *= 2) {
        uint t = lid >= off ? s[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n)
        offsets[gid] = s[lid] - v; /* exclusive */
    if (lid == lsz - 1)
        group_totals[get_group_id(0)] = s[lid];
}

__kernel void scan_group_totals(__global uint *totals, uint groups, __global uint *count)
{
    if (get_global_id(0) != 0)
        return;
    uint run = 0;
    for (uint g = 0; g < groups; ++g) {
        uint t = totals[g];
        totals[g] = run;
        run += t;
    }
    *count = run;
}

__kernel void scatter(__global const particle_t *in, __global const uint *flags,
                      __global const uint *offsets, __global const uint *group_base,
                      __global particle_t *out, uint n)
{
    uint i = get_global_id(0);
    if (i < n && flags[i])
        out[group_base[get_group_id(0)] + offsets[i]] = in[i];
}
