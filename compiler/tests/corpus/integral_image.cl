// Summed-area table: row-wise inclusive scans then column-wise scans, with ulong sums of
// uchar pixels, and a box-sum query kernel.
__kernel void rows_scan(__global const uchar *img, __global ulong *sat, const int w, const int h)
{
    int y = get_global_id(0);
    if (y >= h)
        return;
    ulong run = 0;
    for (int x = 0; x < w; ++x) {
        run += img[y * w + x];
        sat[(size_t)y * w + x] = run;
    }
}

__kernel void cols_scan(__global ulong *sat, const int w, const int h)
{
    int x = get_global_id(0);
    if (x >= w)
        return;
    for (int y = 1; y < h; ++y)
        sat[(size_t)y * w + x] += sat[(size_t)(y - 1) * w + x];
}

inline ulong sat_at(__global const ulong *sat, int w, int x, int y)
{
    return (x < 0 || y < 0) ? 0UL : sat[(size_t)y * w + x];
}

__kernel void box_mean(__global const ulong *sat, __global float *mean, const int w, const int h,
                       const int r)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    int x0 = max(x - r, 0) - 1, y0 = max(y - r, 0) - 1;
    int x1 = min(x + r, w - 1), y1 = min(y + r, h - 1);
    ulong s = sat_at(sat, w, x1, y1) - sat_at(sat, w, x0, y1) - sat_at(sat, w, x1, y0)
            + sat_at(sat, w, x0, y0);
    mean[y * w + x] = (float)s / (float)((x1 - x0) * (y1 - y0));
}
