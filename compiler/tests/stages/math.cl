// Math builtins: inline instructions where Cranelift has them, library calls for the rest.
kernel void k(global float *out, global const float *in, global double *d) {
    size_t i = get_global_id(0);
    float x = in[i];
    float ip;
    float f = fract(x, &ip);
    out[i] = sin(x) + sqrt(fabs(x)) + fma(x, x, 1.0f) + mad(x, 2.0f, 3.0f) + native_exp(x)
           + clamp(x, 0.0f, 1.0f) + f + ip + pown(x, 3);
    d[i] = exp(d[i]) * rsqrt(d[i]);
}
