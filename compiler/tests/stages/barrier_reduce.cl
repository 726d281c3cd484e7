// A tree reduction in local memory: a barrier in a loop whose bounds are uniform.
kernel void reduce(global const int *in, global int *out, local int *scratch) {
    size_t lid = get_local_id(0);
    size_t n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
