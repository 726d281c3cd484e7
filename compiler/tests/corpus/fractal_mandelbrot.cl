// Mandelbrot with smooth colouring into an RGBA buffer, and a double-precision deep zoom.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__constant uchar4 PALETTE[8] = {
    (uchar4)(0, 7, 100, 255),    (uchar4)(32, 107, 203, 255), (uchar4)(237, 255, 255, 255),
    (uchar4)(255, 170, 0, 255),  (uchar4)(0, 2, 0, 255),      (uchar4)(25, 7, 26, 255),
    (uchar4)(9, 1, 47, 255),     (uchar4)(4, 4, 73, 255)
};

__kernel void mandelbrot(__global uchar4 *out, const float x0, const float y0, const float scale,
                         const uint max_iter)
{
    const int w = get_global_size(0);
    const int px = get_global_id(0), py = get_global_id(1);
    const float cr = x0 + px * scale, ci = y0 + py * scale;
    float zr = 0.0f, zi = 0.0f;
    uint it = 0;
    while (zr * zr + zi * zi <= 256.0f && it < max_iter) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    uchar4 c = (uchar4)(0, 0, 0, 255);
    if (it < max_iter) {
        float nu = log2(log2(zr * zr + zi * zi) * 0.5f);
        float smooth_it = it + 1 - nu;
        float f = fract(smooth_it * 0.1f, &nu);
        uint idx = (uint)smooth_it;
        float4 a = convert_float4(PALETTE[idx & 7]);
        float4 b = convert_float4(PALETTE[(idx + 1) & 7]);
        c = convert_uchar4_sat(mix(a, b, f));
    }
    out[py * w + px] = c;
}

__kernel void mandelbrot_f64(__global ushort *iters, const double x0, const double y0,
                             const double scale, const ushort max_iter, const int width)
{
    int px = get_global_id(0), py = get_global_id(1);
    double cr = x0 + px * scale;
    double ci = y0 + py * scale;
    /* main cardioid and period-2 bulb check */
    double q = (cr - 0.25) * (cr - 0.25) + ci * ci;
    if (q * (q + (cr - 0.25)) <= 0.25 * ci * ci || (cr + 1.0) * (cr + 1.0) + ci * ci <= 0.0625) {
        iters[py * width + px] = max_iter;
        return;
    }
    double zr = 0.0, zi = 0.0, zr2 = 0.0, zi2 = 0.0;
    ushort n = 0;
    for (; n < max_iter && zr2 + zi2 <= 4.0; ++n) {
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        zr2 = zr * zr;
        zi2 = zi * zi;
    }
    iters[py * width + px] = n;
}
