// 3x3 and 5x5 median filters with private arrays: a sorting network for 9 values and an
// insertion sort for 25.
#define SWAP_IF(a, b) do { uchar lo_ = min(a, b); uchar hi_ = max(a, b); a = lo_; b = hi_; } while (0)

__kernel void median3x3(__global const uchar *src, __global uchar *dst, int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    uchar p[9];
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int sx = clamp(x + dx, 0, width - 1), sy = clamp(y + dy, 0, height - 1);
            p[n++] = src[sy * width + sx];
        }
    SWAP_IF(p[1], p[2]); SWAP_IF(p[4], p[5]); SWAP_IF(p[7], p[8]);
    SWAP_IF(p[0], p[1]); SWAP_IF(p[3], p[4]); SWAP_IF(p[6], p[7]);
    SWAP_IF(p[1], p[2]); SWAP_IF(p[4], p[5]); SWAP_IF(p[7], p[8]);
    SWAP_IF(p[0], p[3]); SWAP_IF(p[5], p[8]); SWAP_IF(p[4], p[7]);
    SWAP_IF(p[3], p[6]); SWAP_IF(p[1], p[4]); SWAP_IF(p[2], p[5]);
    SWAP_IF(p[4], p[7]); SWAP_IF(p[4], p[2]); SWAP_IF(p[6], p[4]);
    SWAP_IF(p[4], p[2]);
    dst[y * width + x] = p[4];
}

__kernel void median5x5_rgba(__global const uchar4 *src, __global uchar4 *dst, int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    uchar4 win[25];
    int count = 0;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            win[count++] = src[clamp(y + dy, 0, height - 1) * width + clamp(x + dx, 0, width - 1)];
    uchar4 result;
    for (int ch = 0; ch < 4; ++ch) {
        uchar v[25];
        for (int i = 0; i < 25; ++i) {
            uchar4 px = win[i];
            v[i] = ch == 0 ? px.x : ch == 1 ? px.y : ch == 2 ? px.z : px.w;
        }
        for (int i = 1; i < 25; ++i) {
            uchar key = v[i];
            int j = i - 1;
            while (j >= 0 && v[j] > key) {
                v[j + 1] = v[j];
                --j;
            }
            v[j + 1] = key;
        }
        switch (ch) {
        case 0: result.x = v[12]; break;
        case 1: result.y = v[12]; break;
        case 2: result.z = v[12]; break;
        default: result.w = v[12]; break;
        }
    }
    dst[y * width + x] = result;
}
