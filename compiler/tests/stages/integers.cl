// Integer builtins.
kernel void k(global int *out, global const uint *in) {
    size_t i = get_global_id(0);
    uint x = in[i];
    out[i] = clz(x) + popcount(x) + rotate(x, 3u) + mul_hi(x, 7u) + add_sat((int)x, 5)
           + abs_diff((int)x, -3) + mad24((int)x, 2, 1) + upsample((short)1, (ushort)2);
}
