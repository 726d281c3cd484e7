// printf: a format in constant memory and the arguments in the printf buffer.
kernel void k(global const float *in) {
    size_t i = get_global_id(0);
    if (i == 0)
        printf("first %f %d %s\n", in[0], (int)i, "end");
}
