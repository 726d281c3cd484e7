// The file ends inside a function, an argument list and a block.
kernel void k(global int *out)
{
    out[0] = 1;
    if (out[0]) {
        out[1] = max(out[0],
