// Full bitonic sort of a block in local memory with key/value pairs.
#ifndef BLOCK
#define BLOCK 512
#endif

inline void compare_swap(__local uint *k, __local int *v, uint a, uint b, bool dir)
{
    uint ka = k[a], kb = k[b];
    if ((ka > kb) == dir) {
        k[a] = kb;
        k[b] = ka;
        int t = v[a];
        v[a] = v[b];
        v[b] = t;
    }
}

__kernel void bitonic_sort_block(__global uint *keys, __global int *vals)
{
    __local uint lk[BLOCK];
    __local int lv[BLOCK];
    uint lid = get_local_id(0);
    uint base = get_group_id(0) * BLOCK;
    for (uint i = lid; i < BLOCK; i += get_local_size(0)) {
        lk[i] = keys[base + i];
        lv[i] = vals[base + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint size = 2; size <= BLOCK; size <<= 1) {
        for (uint stride = size >> 1; stride > 0; stride >>= 1) {
            for (uint t = lid; t < BLOCK / 2; t += get_local_size(0)) {
                uint pos = 2 * t - (t & (stride - 1));
                bool ascending = (pos & size) == 0;
                compare_swap(lk, lv, pos, pos + stride, ascending);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (uint i = lid; i < BLOCK; i += get_local_size(0)) {
        keys[base + i] = lk[i];
        vals[base + i] = lv[i];
    }
}
