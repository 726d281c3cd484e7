// Work-item functions in two dimensions; dimension 0 of the global id is the row counter,
// the others are read once per row.
kernel void k(global int *out) {
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t w = get_global_size(0);
    out[y * w + x] = get_local_id(1) + get_group_id(1) + get_num_groups(0)
                   + get_global_offset(1) + get_work_dim();
}
