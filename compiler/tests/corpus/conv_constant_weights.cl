// 2D convolution with weights in a __constant program-scope table and a 1D FIR filter with
// weights passed as a __constant kernel argument.
#define KSIZE 5
#define KHALF (KSIZE / 2)

__constant float LAPLACIAN_OF_GAUSSIAN[KSIZE][KSIZE] = {
    {  0.0f,  0.0f, -1.0f,  0.0f,  0.0f },
    {  0.0f, -1.0f, -2.0f, -1.0f,  0.0f },
    { -1.0f, -2.0f, 16.0f, -2.0f, -1.0f },
    {  0.0f, -1.0f, -2.0f, -1.0f,  0.0f },
    {  0.0f,  0.0f, -1.0f,  0.0f,  0.0f },
};

__constant int BOX_NORM = KSIZE * KSIZE;

__kernel void conv2d_log(__global const float *in, __global float *out, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    float acc = 0.0f;
#pragma unroll
    for (int j = -KHALF; j <= KHALF; ++j)
#pragma unroll
        for (int i = -KHALF; i <= KHALF; ++i) {
            int sx = clamp(x + i, 0, w - 1), sy = clamp(y + j, 0, h - 1);
            acc += LAPLACIAN_OF_GAUSSIAN[j + KHALF][i + KHALF] * in[sy * w + sx];
        }
    out[y * w + x] = acc;
}

__kernel void box_blur(__global const float *in, __global float *out, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < KHALF || y < KHALF || x >= w - KHALF || y >= h - KHALF)
        return;
    float acc = 0.0f;
    for (int j = -KHALF; j <= KHALF; ++j)
        for (int i = -KHALF; i <= KHALF; ++i)
            acc += in[(y + j) * w + x + i];
    out[y * w + x] = acc / BOX_NORM;
}

__kernel void fir1d(__global const float *signal, __constant float *taps, const uint ntaps,
                    __global float *out, const uint n)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (uint t = 0; t < ntaps && t <= i; ++t)
        acc = mad(taps[t], signal[i - t], acc);
    out[i] = acc;
}
