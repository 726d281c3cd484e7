// A switch with barriers in its cases becomes an if chain the planner splits.
kernel void k(global int *out, int mode) {
    local int t[64];
    int lid = get_local_id(0);
    t[lid] = lid;
    switch (mode) {
    case 0:
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = t[get_local_size(0) - 1 - lid];
        break;
    case 1:
    case 2:
        out[get_global_id(0)] = mode;
        break;
    default:
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = t[0];
    }
}
