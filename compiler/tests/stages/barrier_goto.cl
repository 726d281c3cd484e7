// A barrier inside a loop made of goto: the planner cannot split it, the kernel runs as a
// resumable work-item function (the fallback).
kernel void k(global int *out, int rounds) {
    local int t[64];
    int lid = get_local_id(0), n = get_local_size(0);
    int acc = get_global_id(0) * 3 + 1;
    int round = 0;
again:
    t[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    acc += t[(lid + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (++round < rounds) goto again;
    out[get_global_id(0)] = acc;
}
