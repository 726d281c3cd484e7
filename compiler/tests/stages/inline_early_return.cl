// A synchronizing helper with an early return (before the barrier every item reaches)
// and a call in a short-circuit operand.
int advance(local int *t, int v, int limit) {
    int lid = get_local_id(0);
    t[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (v > limit)
        return limit;
    return t[0] + v;
}

kernel void k(global int *out, int limit) {
    local int t[64];
    int g = get_global_id(0);
    int r = advance(t, g, limit);
    out[g] = r > 0 && advance(t, r, limit) > 3;
}
