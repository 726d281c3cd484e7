// Sobel edge magnitude and direction on grayscale float input, tile cached in local memory
// with a one-pixel apron.
#define TW 16
#define TH 16

__kernel __attribute__((reqd_work_group_size(TW, TH, 1)))
void sobel(__global const float *img, __global float *mag, __global uchar *dir,
           const int width, const int height)
{
    __local float tile[TH + 2][TW + 2];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx = get_global_id(0), gy = get_global_id(1);
    const int ox = get_group_id(0) * TW - 1, oy = get_group_id(1) * TH - 1;

    for (int yy = ly; yy < TH + 2; yy += TH)
        for (int xx = lx; xx < TW + 2; xx += TW) {
            int sx = clamp(ox + xx, 0, width - 1);
            int sy = clamp(oy + yy, 0, height - 1);
            tile[yy][xx] = img[sy * width + sx];
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gx >= width || gy >= height)
        return;

    const int cx = lx + 1, cy = ly + 1;
    float gxv = -tile[cy - 1][cx - 1] - 2.0f * tile[cy][cx - 1] - tile[cy + 1][cx - 1]
              + tile[cy - 1][cx + 1] + 2.0f * tile[cy][cx + 1] + tile[cy + 1][cx + 1];
    float gyv = -tile[cy - 1][cx - 1] - 2.0f * tile[cy - 1][cx] - tile[cy - 1][cx + 1]
              + tile[cy + 1][cx - 1] + 2.0f * tile[cy + 1][cx] + tile[cy + 1][cx + 1];
    mag[gy * width + gx] = hypot(gxv, gyv);
    float angle = atan2(gyv, gxv); /* -pi..pi */
    int sector = (int)round(angle * (4.0f / M_PI_F)) & 3; /* 0,45,90,135 degrees */
    dir[gy * width + gx] = (uchar)sector;
}
