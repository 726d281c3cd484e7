// Work-efficient (Blelloch) exclusive scan of 2*local_size elements per group, with
// bank-conflict avoiding padding and a block-sum output for a multi-level scan.
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(i) ((i) >> LOG_NUM_BANKS)

__kernel void scan_exclusive_block(__global const int *in, __global int *out,
                                   __global int *block_sums, __local int *temp)
{
    const int thid = get_local_id(0);
    const int n = get_local_size(0) * 2;
    const int base = get_group_id(0) * n;

    int ai = thid, bi = thid + n / 2;
    int bank_a = CONFLICT_FREE_OFFSET(ai), bank_b = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bank_a] = in[base + ai];
    temp[bi + bank_b] = in[base + bi];

    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    if (thid == 0) {
        int last = n - 1 + CONFLICT_FREE_OFFSET(n - 1);
        block_sums[get_group_id(0)] = temp[last];
        temp[last] = 0;
    }
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            int t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + ai] = temp[ai + bank_a];
    out[base + bi] = temp[bi + bank_b];
}

__kernel void scan_add_block_sums(__global int *data, __global const int *scanned_sums)
{
    uint g = get_group_id(0);
    uint i = g * get_local_size(0) * 2 + get_local_id(0);
    int add = scanned_sums[g];
    data[i] += add;
    data[i + get_local_size(0)] += add;
}
