// Vectorised load of four elements per item, two-stage reduction with the last
// "warp" unrolled through volatile local memory.
inline void warp_reduce(volatile __local float *s, uint lid)
{
    s[lid] += s[lid + 32];
    s[lid] += s[lid + 16];
    s[lid] += s[lid + 8];
    s[lid] += s[lid + 4];
    s[lid] += s[lid + 2];
    s[lid] += s[lid + 1];
}

__kernel void reduce_vec4(__global const float4 *in, __global float *out,
                          __local float *s, uint n4)
{
    uint lid = get_local_id(0);
    uint i = get_group_id(0) * get_local_size(0) * 2 + lid;
    float4 acc = (float4)(0.0f);
    if (i < n4)
        acc += in[i];
    if (i + get_local_size(0) < n4)
        acc += in[i + get_local_size(0)];
    s[lid] = acc.x + acc.y + acc.z + acc.w;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint k = get_local_size(0) / 2; k > 32; k >>= 1) {
        if (lid < k)
            s[lid] += s[lid + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 32)
        warp_reduce(s, lid);
    if (lid == 0)
        out[get_group_id(0)] = s[0];
}
