// Radix-2 FFT with float2 complex numbers: bit-reversal permutation, one Stockham-free
// Cooley-Tukey butterfly stage per launch, and a local-memory FFT for small sizes.
#define CMUL(a, b) ((float2)(mad((a).x, (b).x, -(a).y * (b).y), mad((a).x, (b).y, (a).y * (b).x)))

inline float2 twiddle(int k, int n, int dir)
{
    float c;
    float s = sincos(dir * 2.0f * M_PI_F * k / n, &c);
    return (float2)(c, s);
}

inline uint reverse_bits(uint x, uint bits)
{
    x = ((x & 0x55555555u) << 1) | ((x >> 1) & 0x55555555u);
    x = ((x & 0x33333333u) << 2) | ((x >> 2) & 0x33333333u);
    x = ((x & 0x0f0f0f0fu) << 4) | ((x >> 4) & 0x0f0f0f0fu);
    x = ((x & 0x00ff00ffu) << 8) | ((x >> 8) & 0x00ff00ffu);
    x = (x << 16) | (x >> 16);
    return x >> (32 - bits);
}

__kernel void fft_bitreverse(__global const float2 *in, __global float2 *out, const uint log2n)
{
    uint i = get_global_id(0);
    out[reverse_bits(i, log2n)] = in[i];
}

__kernel void fft_butterfly(__global float2 *data, const int half_span, const int dir)
{
    int k = get_global_id(0);
    int group = k / half_span;
    int pos = k % half_span;
    int top = group * 2 * half_span + pos;
    int bot = top + half_span;
    float2 w = twiddle(pos, 2 * half_span, dir);
    float2 a = data[top];
    float2 b = CMUL(data[bot], w);
    data[top] = a + b;
    data[bot] = a - b;
}

__kernel void fft_local(__global float2 *data, const uint log2n, const int dir, __local float2 *buf)
{
    const uint n = 1u << log2n;
    const uint lid = get_local_id(0);
    __global float2 *row = data + get_group_id(0) * n;
    for (uint i = lid; i < n; i += get_local_size(0))
        buf[reverse_bits(i, log2n)] = row[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint half_span = 1; half_span < n; half_span <<= 1) {
        for (uint k = lid; k < n / 2; k += get_local_size(0)) {
            uint pos = k & (half_span - 1);
            uint top = ((k - pos) << 1) + pos;
            float2 w = twiddle(pos, 2 * half_span, dir);
            float2 a = buf[top];
            float2 b = CMUL(buf[top + half_span], w);
            buf[top] = a + b;
            buf[top + half_span] = a - b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float scale = dir > 0 ? 1.0f / n : 1.0f;
    for (uint i = lid; i < n; i += get_local_size(0))
        row[i] = buf[i] * scale;
}
