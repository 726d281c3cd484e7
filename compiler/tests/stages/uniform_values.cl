// Which variables are uniform: sizes, group ids and parameters and what is computed from
// them under uniform control flow; not the local id, memory reads or what depends on them.
kernel void k(global float *out, global const float *in, int n, float scale) {
    local float t[64];
    int lid = get_local_id(0);
    int base = get_group_id(0) * get_local_size(0);
    float s = scale * 2.0f;
    int steps = n / 2;
    float v = in[base + lid];
    for (int i = 0; i < steps; i++) {
        t[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v += t[(lid + 1) % get_local_size(0)] * s;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[base + lid] = v;
}
