// The float tree reduction of clift-bench: each region's row runs 4 work-items per step
// (`f32x4` loads, adds and stores of `scratch`), the remainder of a row scalar.
kernel void reduce(global const float *in, global float *out, local float *scratch) {
    size_t lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}
