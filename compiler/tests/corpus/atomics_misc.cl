// The OpenCL 1.1/1.2 atomic function family on global and local int/uint, plus the
// cl_khr_int64 extended atomics on ulong.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

__kernel void atomic_family(volatile __global int *gi, volatile __global uint *gu,
                            __global const int *vals, __local int *li)
{
    int v = vals[get_global_id(0)];
    if (get_local_id(0) == 0)
        li[0] = 0, li[1] = INT_MAX, li[2] = INT_MIN;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&gi[0], v);
    atomic_sub(&gi[1], v);
    atomic_xchg(&gi[2], v);
    atomic_min(&gi[3], v);
    atomic_max(&gi[4], v);
    atomic_and(&gu[0], (uint)v);
    atomic_or(&gu[1], 1u << (v & 31));
    atomic_xor(&gu[2], (uint)v);
    atomic_dec(&gu[3]);
    atomic_inc(&li[0]);
    atomic_min(&li[1], v);
    atomic_max(&li[2], v);
    float old = atomic_xchg((volatile __global float *)&gi[5], (float)v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        atomic_add(&gi[6], li[0]);
        atomic_min(&gi[7], li[1]);
        atomic_max(&gi[8], li[2] + (int)old);
    }
}

__kernel void atomics64(volatile __global ulong *counters, volatile __global long *mins,
                        __global const long *vals)
{
    long v = vals[get_global_id(0)];
    atom_add(&counters[0], (ulong)v);
    atom_inc(&counters[1]);
    atom_max(&counters[2], (ulong)v);
    atom_min(&mins[0], v);
    ulong prev = atom_cmpxchg(&counters[3], 0UL, (ulong)get_global_id(0));
    atom_or(&counters[4], prev);
}
