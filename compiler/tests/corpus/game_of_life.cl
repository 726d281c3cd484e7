// Conway's game of life on a toroidal grid of uchar cells, plus a bit-packed variant
// where each work-item updates 32 cells held in a uint.
__kernel void life_step(__global const uchar *cur, __global uchar *next, const int w, const int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx | dy)
                n += cur[((y + dy + h) % h) * w + (x + dx + w) % w];
    uchar alive = cur[y * w + x];
    next[y * w + x] = (n == 3 || (alive && n == 2)) ? 1 : 0;
}

__kernel void life_bitpacked(__global const uint *cur, __global uint *next, const int words_per_row,
                             const int h)
{
    int wx = get_global_id(0), y = get_global_id(1);
    if (wx >= words_per_row || y >= h)
        return;
    uint rows[3][3];
    for (int dy = 0; dy < 3; ++dy) {
        int yy = (y + dy - 1 + h) % h;
        for (int dx = 0; dx < 3; ++dx)
            rows[dy][dx] = cur[yy * words_per_row + (wx + dx - 1 + words_per_row) % words_per_row];
    }
    uint result = 0;
    for (int bit = 0; bit < 32; ++bit) {
        int count = 0;
        for (int dy = 0; dy < 3; ++dy) {
            uint left = bit == 0 ? rows[dy][0] >> 31 : (rows[dy][1] >> (bit - 1)) & 1u;
            uint mid = (rows[dy][1] >> bit) & 1u;
            uint right = bit == 31 ? rows[dy][2] & 1u : (rows[dy][1] >> (bit + 1)) & 1u;
            count += left + right + (dy != 1 ? mid : 0);
        }
        uint self = (rows[1][1] >> bit) & 1u;
        result |= (uint)(count == 3 || (self && count == 2)) << bit;
    }
    next[y * words_per_row + wx] = result;
}
