// A case that breaks out of the switch from inside an if: no if chain says this, so the
// switch stays and the kernel runs as a resumable work-item function (the fallback).
kernel void k(global int *out, int mode) {
    local int t[64];
    int lid = get_local_id(0);
    int v = lid;
    switch (mode) {
    case 0:
        if (get_local_size(0) < 2)
            break;
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
