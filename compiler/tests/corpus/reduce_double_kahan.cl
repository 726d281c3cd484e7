// Double-precision compensated (Kahan) summation per work-item, then a tree.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct {
    double sum;
    double c;
} kahan_t;

inline kahan_t kahan_add(kahan_t k, double x)
{
    double y = x - k.c;
    double t = k.sum + y;
    k.c = (t - k.sum) - y;
    k.sum = t;
    return k;
}

__kernel void kahan_reduce(__global const double *x, __global double *partial,
                           __local double *scratch, ulong n)
{
    kahan_t acc = { 0.0, 0.0 };
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        acc = kahan_add(acc, x[i]);
    size_t lid = get_local_id(0);
    scratch[lid] = acc.sum - acc.c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) >> 1; s; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (!lid)
        partial[get_group_id(0)] = scratch[0];
}
