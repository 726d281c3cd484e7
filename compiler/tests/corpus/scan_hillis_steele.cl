// Inclusive Hillis-Steele scan within a work-group (double-buffered local memory).
__kernel void scan_inclusive(__global const uint *in, __global uint *out,
                             __local uint *buf, uint n)
{
    int lid = (int)get_local_id(0);
    int lsz = (int)get_local_size(0);
    size_t gid = get_global_id(0);
    int pout = 0, pin = 1;

    buf[lid] = gid < n ? in[gid] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 1; offset < lsz; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (lid >= offset)
            buf[pout * lsz + lid] = buf[pin * lsz + lid] + buf[pin * lsz + lid - offset];
        else
            buf[pout * lsz + lid] = buf[pin * lsz + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n)
        out[gid] = buf[pout * lsz + lid];
}
