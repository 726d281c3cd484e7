// Bilateral filter on a float grayscale buffer, with a precomputed spatial kernel in a
// private array and range weights from native_exp.
#define R 3
#define D (2 * R + 1)

__kernel void bilateral(__global const float *in, __global float *out, const int w, const int h,
                        const float sigma_s, const float sigma_r)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float spatial[D * D];
    const float inv2ss = -0.5f / (sigma_s * sigma_s);
    const float inv2sr = -0.5f / (sigma_r * sigma_r);
    for (int j = 0; j < D; ++j)
        for (int i = 0; i < D; ++i)
            spatial[j * D + i] = native_exp((float)((i - R) * (i - R) + (j - R) * (j - R)) * inv2ss);
    float center = in[y * w + x];
    float num = 0.0f, den = 0.0f;
    for (int j = -R; j <= R; ++j) {
        int yy = clamp(y + j, 0, h - 1);
        for (int i = -R; i <= R; ++i) {
            float v = in[yy * w + clamp(x + i, 0, w - 1)];
            float diff = v - center;
            float wgt = spatial[(j + R) * D + i + R] * native_exp(diff * diff * inv2sr);
            num += wgt * v;
            den += wgt;
        }
    }
    out[y * w + x] = native_divide(num, den);
}
