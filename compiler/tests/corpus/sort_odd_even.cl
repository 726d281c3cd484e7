// Odd-even transposition sort of short rows in local memory (one row per group).
__kernel void odd_even_rows(__global short *rows, uint row_len, __local short *row)
{
    uint lid = get_local_id(0);
    __global short *mine = rows + get_group_id(0) * row_len;
    for (uint i = lid; i < row_len; i += get_local_size(0))
        row[i] = mine[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint phase = 0;
    do {
        uint start = phase & 1u;
        for (uint i = start + 2 * lid; i + 1 < row_len; i += 2 * get_local_size(0)) {
            short a = row[i], b = row[i + 1];
            if (a > b) {
                row[i] = b;
                row[i + 1] = a;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    } while (++phase < row_len);
    for (uint i = lid; i < row_len; i += get_local_size(0))
        mine[i] = row[i];
}
