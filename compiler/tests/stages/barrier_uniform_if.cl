// A barrier under a condition every work-item of the group evaluates alike.
kernel void k(global int *out, int flag) {
    local int t[64];
    int lid = get_local_id(0);
    t[lid] = lid * 2;
    if (flag > 0) {
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = t[(lid + 1) % get_local_size(0)];
    } else {
        out[get_global_id(0)] = -1;
    }
}
