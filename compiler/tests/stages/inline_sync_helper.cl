// A helper that synchronizes, called inside an expression: the call is hoisted into a
// variable of its own statement, then the helper's body inlined into the kernel.
int exchange(local int *t, int v) {
    int lid = get_local_id(0);
    t[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    return t[(lid + 1) % get_local_size(0)];
}

kernel void k(global int *out) {
    local int t[64];
    int g = get_global_id(0);
    out[g] = 2 * exchange(t, g) + 1;
}
