// One bitonic merge step over global memory: host loops over (stage, pass).
__kernel void bitonic_step(__global uint *keys, const uint stage, const uint pass, const uint ascending)
{
    uint tid = get_global_id(0);
    uint pair_distance = 1u << (stage - pass);
    uint block_width = 2u * pair_distance;
    uint left = (tid % pair_distance) + (tid / pair_distance) * block_width;
    uint right = left + pair_distance;

    uint a = keys[left];
    uint b = keys[right];
    uint same_dir = ascending;
    if ((tid / (1u << stage)) % 2 == 1)
        same_dir = 1 - same_dir;

    uint lo = min(a, b), hi = max(a, b);
    if (same_dir) {
        keys[left] = lo;
        keys[right] = hi;
    } else {
        keys[left] = hi;
        keys[right] = lo;
    }
}
