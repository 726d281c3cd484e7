// 32-bit atomics on global and local memory, and a 64-bit one.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
kernel void k(global int *counter, global uint *bits, global long *big) {
    local int hits;
    if (get_local_id(0) == 0)
        hits = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int old = atomic_add(counter, 1);
    atomic_inc(&hits);
    atomic_or(bits, 1u << (old & 31));
    atomic_cmpxchg(counter, 100, 0);
    atom_add(big, (long)old);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atomic_max(counter, hits);
}
