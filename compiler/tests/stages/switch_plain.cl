// A switch without barriers stays a switch (a jump table in the CLIF).
kernel void k(global int *out, global const int *in) {
    size_t i = get_global_id(0);
    int r;
    switch (in[i]) {
    case 0: r = 5; break;
    case 1: r = 7;
    case 2: r += 1; break;
    case 10: r = -1; break;
    default: r = 0;
    }
    out[i] = r;
}
