// Separable Gaussian blur on an RGBA8 buffer: horizontal and vertical passes with a
// weight table computed per launch, clamped edges.
#define MAX_RADIUS 16

__kernel void gaussian_weights(__global float *w, const int radius, const float sigma)
{
    int i = get_global_id(0);
    if (i > 2 * radius)
        return;
    float x = (float)(i - radius);
    w[i] = native_exp(-(x * x) / (2.0f * sigma * sigma)) / (sqrt(2.0f * M_PI_F) * sigma);
}

__kernel void blur_h(__global const uchar4 *src, __global float4 *tmp, __constant float *w,
                     const int radius, const int width, const int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    float4 acc = 0.0f;
    float norm = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        int xx = clamp(x + k, 0, width - 1);
        float wk = w[k + radius];
        acc += wk * convert_float4(src[y * width + xx]);
        norm += wk;
    }
    tmp[y * width + x] = acc / norm;
}

__kernel void blur_v(__global const float4 *tmp, __global uchar4 *dst, __constant float *w,
                     const int radius, const int width, const int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    float4 acc = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
    float norm = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        int yy = min(max(y + k, 0), height - 1);
        acc += w[k + radius] * tmp[yy * width + x];
        norm += w[k + radius];
    }
    dst[y * width + x] = convert_uchar4_sat_rte(acc / norm);
}

__kernel void gaussian3x3_gray(__global const uchar *in, __global uchar *out, int w, int h)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
        return;
    const int k[3][3] = { { 1, 2, 1 }, { 2, 4, 2 }, { 1, 2, 1 } };
    int sum = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += k[dy + 1][dx + 1] * in[(y + dy) * w + x + dx];
    out[y * w + x] = (uchar)((sum + 8) >> 4);
}
