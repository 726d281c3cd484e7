// A case that falls through into a case with a barrier: the if chain repeats the code of
// the case it falls into.
kernel void k(global int *out, int mode) {
    local int t[64];
    int lid = get_local_id(0);
    int v = lid;
    switch (mode) {
    case 0:
        v += 10;
    case 1:
        t[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = t[(lid + 1) % get_local_size(0)];
        break;
    default:
        v = -v;
    }
    out[get_global_id(0)] = v;
}
