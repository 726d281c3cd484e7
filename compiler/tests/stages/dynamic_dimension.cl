// A work-item query whose dimension is not a constant reads the item context.
kernel void k(global int *out, uint d) {
    out[get_global_id(0)] = get_local_id(d) + get_global_id(d);
}
