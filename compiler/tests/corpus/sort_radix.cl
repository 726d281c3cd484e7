// LSD radix sort, 4 bits per pass: per-group digit histograms, then a stable scatter
// using a local rank computed by each work-item's serial pass over its chunk.
#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
#define RADIX_MASK (RADIX - 1)
#define ITEMS_PER_WI 4

__kernel void radix_histogram(__global const uint *keys, __global uint *histograms,
                              uint shift, uint n, __local uint *hist)
{
    uint lid = get_local_id(0);
    uint group = get_group_id(0);
    uint groups = get_num_groups(0);
    if (lid < RADIX)
        hist[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    uint start = (group * get_local_size(0) + lid) * ITEMS_PER_WI;
    for (uint k = 0; k < ITEMS_PER_WI; ++k) {
        uint i = start + k;
        if (i < n)
            atomic_inc(&hist[(keys[i] >> shift) & RADIX_MASK]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* digit-major layout so one scan over the whole array gives global offsets */
    if (lid < RADIX)
        histograms[lid * groups + group] = hist[lid];
}

__kernel void radix_scatter(__global const uint *keys_in, __global uint *keys_out,
                            __global const uint *scanned, uint shift, uint n,
                            __local uint *counts /* RADIX * local_size */)
{
    uint lid = get_local_id(0), lsz = get_local_size(0);
    uint group = get_group_id(0), groups = get_num_groups(0);
    uint start = (group * lsz + lid) * ITEMS_PER_WI;
    uint mine[RADIX];
    for (uint d = 0; d < RADIX; ++d)
        mine[d] = 0;
    for (uint k = 0; k < ITEMS_PER_WI; ++k)
        if (start + k < n)
            mine[(keys_in[start + k] >> shift) & RADIX_MASK]++;
    for (uint d = 0; d < RADIX; ++d)
        counts[d * lsz + lid] = mine[d];
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0) {
        for (uint d = 0; d < RADIX; ++d) {
            uint run = 0;
            for (uint w = 0; w < lsz; ++w) {
                uint c = counts[d * lsz + w];
                counts[d * lsz + w] = run;
                run += c;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint k = 0; k < ITEMS_PER_WI; ++k) {
        uint i = start + k;
        if (i >= n)
            break;
        uint key = keys_in[i];
        uint d = (key >> shift) & RADIX_MASK;
        uint dst = scanned[d * groups + group] + counts[d * lsz + lid];
        counts[d * lsz + lid]++;
        keys_out[dst] = key;
    }
}
