// A switch without barriers stays a switch in the scalar row (a jump table in the CLIF);
// the vectorized row runs it as an if chain under lane masks (passes/switches.rs).
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
