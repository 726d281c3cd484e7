// Black-Scholes European call/put pricing with the Abramowitz-Stegun normal CDF
// approximation, float4-vectorised variant.
#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267793994605993438f

float cnd(float d)
{
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float poly = k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5))));
    float c = RSQRT2PI * exp(-0.5f * d * d) * poly;
    return d > 0.0f ? 1.0f - c : c;
}

float4 cnd4(float4 d)
{
    float4 k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float4 poly = k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5))));
    float4 c = RSQRT2PI * exp(-0.5f * d * d) * poly;
    return select(c, 1.0f - c, d > 0.0f);
}

__kernel void black_scholes(__global float *call, __global float *put, __global const float *S,
                            __global const float *X, __global const float *T, const float r,
                            const float v, const uint n)
{
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        float sqrtT = sqrt(T[i]);
        float d1 = (log(S[i] / X[i]) + (r + 0.5f * v * v) * T[i]) / (v * sqrtT);
        float d2 = d1 - v * sqrtT;
        float expRT = exp(-r * T[i]);
        call[i] = S[i] * cnd(d1) - X[i] * expRT * cnd(d2);
        put[i] = X[i] * expRT * (1.0f - cnd(d2)) - S[i] * (1.0f - cnd(d1));
    }
}

__kernel void black_scholes4(__global float4 *call, __global const float4 *S,
                             __global const float4 *X, __global const float4 *T, const float r,
                             const float v)
{
    size_t i = get_global_id(0);
    float4 sqrtT = sqrt(T[i]);
    float4 d1 = (log(S[i] / X[i]) + (r + 0.5f * v * v) * T[i]) / (v * sqrtT);
    float4 d2 = d1 - v * sqrtT;
    call[i] = S[i] * cnd4(d1) - X[i] * exp(-r * T[i]) * cnd4(d2);
}
