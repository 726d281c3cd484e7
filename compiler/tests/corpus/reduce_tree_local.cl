// Classic work-group tree reduction in local memory, one partial sum per group.
__kernel void reduce_sum(__global const float *in, __global float *partial,
                         __local float *scratch, const uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint lsz = get_local_size(0);

    scratch[lid] = (gid < n) ? in[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint stride = lsz / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
