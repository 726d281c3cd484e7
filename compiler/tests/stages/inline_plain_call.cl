// A helper without barriers is called, not inlined.
float square(float x) { return x * x; }

kernel void k(global float *out, global const float *in) {
    size_t i = get_global_id(0);
    out[i] = square(in[i]) + square(1.5f);
}
