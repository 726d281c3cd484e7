// Induction variables (codegen/simd/induction.rs): `id` is a sequence in every step of the
// loop, so `a[id]` is one vector load. `stride` steps it by a size_t (its int lanes may
// wrap: one compare of the base before the load); `by_n` in its own type (a signed int
// does not wrap: no test).
kernel void stride(global const float *a, global float *out, int n) {
    int id = get_global_id(0);
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        sum += a[id];
        id += get_global_size(0);
    }
    out[get_global_id(0)] = sum;
}

kernel void by_n(global const float *a, global float *out, int n) {
    int id = get_global_id(0);
    float sum = 0.0f;
    for (int i = 0; i < 4; i++) {
        sum += a[id];
        id = id + n;
    }
    out[get_global_id(0)] = sum;
}
