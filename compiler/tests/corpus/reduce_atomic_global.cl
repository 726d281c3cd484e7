// Reduction finished with global atomics: integer sum and a float min via CAS on bits.
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable

void atomic_min_float(volatile __global float *addr, float value)
{
    union { uint u; float f; } prev, next;
    prev.f = *addr;
    while (value < prev.f) {
        next.f = value;
        uint seen = atomic_cmpxchg((volatile __global uint *)addr, prev.u, next.u);
        if (seen == prev.u)
            break;
        prev.u = seen;
    }
}

__kernel void sum_and_min(__global const int *counts, __global const float *values,
                          volatile __global int *total, volatile __global float *minimum,
                          __local int *lsum, uint n)
{
    uint gid = get_global_id(0), lid = get_local_id(0);
    if (lid == 0)
        *lsum = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n) {
        atomic_add(lsum, counts[gid]);
        atomic_min_float(minimum, values[gid]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        atomic_add(total, *lsum);
}
