// Grid-stride accumulation followed by a sequential-addressing tree, fixed group size.
#define GROUP_SIZE 256

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void reduce_max_grid(__global const int *restrict data, __global int *restrict out, uint n)
{
    __local int tile[GROUP_SIZE];
    uint lid = get_local_id(0);
    int best = INT_MIN;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        best = max(best, data[i]);
    tile[lid] = best;
    barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
    for (uint s = GROUP_SIZE >> 1; s > 0; s >>= 1) {
        if (lid < s)
            tile[lid] = max(tile[lid], tile[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = tile[0];
}
