// An async copy into local memory and the wait: a group synchronization point.
kernel void k(global const float *in, global float *out, local float *tile) {
    size_t n = get_local_size(0);
    event_t e = async_work_group_copy(tile, in + get_group_id(0) * n, n, 0);
    wait_group_events(1, &e);
    size_t lid = get_local_id(0);
    out[get_global_id(0)] = tile[n - 1 - lid];
}
