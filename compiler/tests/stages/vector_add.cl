// No barrier: one loop over the work-items; the global id of dimension 0 is the row counter.
kernel void add(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
