// A loop whose bound is the work-item's own: its counter and everything assigned in it
// are varying.
kernel void k(global int *out) {
    int g = get_global_id(0);
    int acc = 0;
    for (int i = 0; i < g; i++) {
        if (i % 3 == 0)
            continue;
        acc += i;
        if (acc > 1000)
            break;
    }
    int j = 0;
    do {
        j++;
    } while (j * j < g);
    out[g] = acc + j;
}
