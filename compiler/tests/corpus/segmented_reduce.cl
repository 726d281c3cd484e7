// Segmented reduction by key within a work-group (head flags + Hillis-Steele segmented
// scan), then per-segment results written by the segment tails.
__kernel void segmented_sum(__global const int *keys, __global const float *vals,
                            __global float *seg_sum, __global int *seg_key, __global int *is_tail,
                            const uint n, __local float *sv, __local uchar *flag)
{
    uint lid = get_local_id(0), lsz = get_local_size(0), gid = get_global_id(0);
    int key = gid < n ? keys[gid] : -1;
    sv[lid] = gid < n ? vals[gid] : 0.0f;
    flag[lid] = (lid == 0 || gid >= n || keys[gid - 1] != key) ? 1 : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < lsz; off <<= 1) {
        float add = 0.0f;
        uchar f = flag[lid];
        if (lid >= off) {
            if (!f)
                add = sv[lid - off];
            f |= flag[lid - off];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        sv[lid] += add;
        flag[lid] = f;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n) {
        bool tail = lid == lsz - 1 || gid == n - 1 || keys[gid + 1] != key;
        is_tail[gid] = tail;
        if (tail) {
            seg_sum[gid] = sv[lid];
            seg_key[gid] = key;
        }
    }
}
