// Fences without a barrier, and a barrier after a loop with varying trip counts.
kernel void k(global int *out, global const int *in) {
    local int t[64];
    int lid = get_local_id(0);
    int v = 0;
    for (int i = 0; i < in[lid]; i++)
        v += i;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    write_mem_fence(CLK_LOCAL_MEM_FENCE);
    t[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    out[get_global_id(0)] = t[0] + v;
}
