// Motion estimation: sum of absolute differences of 8x8 blocks over a search window,
// best vector by reduction in local memory (value packed with index in a ulong).
#define BS 8
#define SEARCH 8
#define WIN (2 * SEARCH + 1)

__kernel void sad_search(__global const uchar *cur, __global const uchar *ref, const int w,
                         const int h, __global short2 *mv, __local ulong *best)
{
    int bx = get_group_id(0) * BS, by = get_group_id(1) * BS;
    int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    int nloc = get_local_size(0) * get_local_size(1);
    ulong mine = ULONG_MAX;
    for (int cand = lid; cand < WIN * WIN; cand += nloc) {
        int dx = cand % WIN - SEARCH, dy = cand / WIN - SEARCH;
        if (bx + dx < 0 || by + dy < 0 || bx + dx + BS > w || by + dy + BS > h)
            continue;
        uint sad = 0;
        for (int y = 0; y < BS; ++y) {
            uchar8 c = vload8(0, cur + (by + y) * w + bx);
            uchar8 r = vload8(0, ref + (by + dy + y) * w + bx + dx);
            uchar8 d = abs_diff(c, r);
            ushort4 s2 = convert_ushort4(d.even) + convert_ushort4(d.odd);
            sad += s2.x + s2.y + s2.z + s2.w;
        }
        mine = min(mine, ((ulong)sad << 32) | (uint)cand);
    }
    best[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = nloc / 2; s > 0; s >>= 1) {
        if (lid < s)
            best[lid] = min(best[lid], best[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        int cand = (int)(best[0] & 0xffffffffu);
        mv[get_group_id(1) * get_num_groups(0) + get_group_id(0)] =
            (short2)((short)(cand % WIN - SEARCH), (short)(cand / WIN - SEARCH));
    }
}
