// Neural-network layers: numerically stable softmax over rows, layer normalisation,
// 2x2 max pooling with argmax, ReLU/GELU activations and a quantised int8 dot product.
#define ACT_RELU 0
#define ACT_GELU 1

__kernel void softmax_rows(__global const float *x, __global float *y, const int cols,
                           __local float *red)
{
    int row = get_group_id(0), lid = get_local_id(0), lsz = get_local_size(0);
    __global const float *xr = x + row * cols;
    float m = -INFINITY;
    for (int c = lid; c < cols; c += lsz)
        m = fmax(m, xr[c]);
    red[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lsz / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] = fmax(red[lid], red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (int c = lid; c < cols; c += lsz)
        sum += exp(xr[c] - m);
    red[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lsz / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float inv = 1.0f / red[0];
    for (int c = lid; c < cols; c += lsz)
        y[row * cols + c] = exp(xr[c] - m) * inv;
}

__kernel void layer_norm(__global const float *x, __global float *y, __global const float *gamma,
                         __global const float *beta, const int cols, const float eps)
{
    int row = get_global_id(0);
    __global const float *xr = x + row * cols;
    float mean = 0.0f, m2 = 0.0f;
    for (int c = 0; c < cols; ++c) { /* Welford */
        float d = xr[c] - mean;
        mean += d / (c + 1);
        m2 += d * (xr[c] - mean);
    }
    float rstd = rsqrt(m2 / cols + eps);
    for (int c = 0; c < cols; ++c)
        y[row * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

__kernel void maxpool2x2(__global const float *in, __global float *out, __global uchar *argmax,
                         const int w, const int h)
{
    int ox = get_global_id(0), oy = get_global_id(1), ch = get_global_id(2);
    int ow = w / 2, oh = h / 2;
    if (ox >= ow || oy >= oh)
        return;
    __global const float *plane = in + (size_t)ch * w * h;
    float best = -MAXFLOAT;
    uchar which = 0;
    for (uchar k = 0; k < 4; ++k) {
        float v = plane[(2 * oy + (k >> 1)) * w + 2 * ox + (k & 1)];
        if (v > best) {
            best = v;
            which = k;
        }
    }
    size_t o = ((size_t)ch * oh + oy) * ow + ox;
    out[o] = best;
    argmax[o] = which;
}

__kernel void activation(__global float *x, const int kind)
{
    size_t i = get_global_id(0);
    float v = x[i];
    switch (kind) {
    case ACT_RELU:
        x[i] = fmax(v, 0.0f);
        break;
    case ACT_GELU:
        x[i] = 0.5f * v * (1.0f + tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        break;
    }
}

__kernel void dot_int8(__global const char16 *a, __global const char16 *b, __global int *out,
                       const int n16, const float scale, __global float *deq)
{
    int row = get_global_id(0);
    int acc = 0;
    for (int k = 0; k < n16; ++k) {
        short16 p = convert_short16(a[row * n16 + k]) * convert_short16(b[k]);
        int8 s = convert_int8(p.lo) + convert_int8(p.hi);
        int4 t = s.lo + s.hi;
        int2 u = t.lo + t.hi;
        acc += u.x + u.y;
    }
    out[row] = acc;
    deq[row] = acc * scale;
}
