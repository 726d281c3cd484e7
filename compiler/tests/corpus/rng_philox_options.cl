// Philox-4x32-10 counter-based RNG, Box-Muller normals, and European option pricing by
// Monte Carlo (geometric Brownian motion).
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

typedef struct { uint4 ctr; uint2 key; } philox_state;

inline uint4 philox_round(uint4 c, uint2 k)
{
    uint hi0 = mul_hi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x;
    uint hi1 = mul_hi(PHILOX_M1, c.z), lo1 = PHILOX_M1 * c.z;
    return (uint4)(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
}

uint4 philox4x32_10(uint4 c, uint2 k)
{
    for (int r = 0; r < 9; ++r) {
        c = philox_round(c, k);
        k += (uint2)(PHILOX_W0, PHILOX_W1);
    }
    return philox_round(c, k);
}

inline float2 box_muller(uint a, uint b)
{
    float u1 = (a + 1.0f) * (1.0f / 4294967296.0f);
    float u2 = b * (1.0f / 4294967296.0f);
    float r = sqrt(-2.0f * log(u1));
    float s, c;
    s = sincos(2.0f * M_PI_F * u2, &c);
    return (float2)(r * c, r * s);
}

__kernel void price_european(const float S0, const float K, const float r, const float sigma,
                             const float T, const uint paths_per_item, const uint2 key,
                             __global float *payoff_sum)
{
    uint gid = get_global_id(0);
    philox_state st;
    st.ctr = (uint4)(0u, gid, 0u, 0u);
    st.key = key;
    const float drift = (r - 0.5f * sigma * sigma) * T;
    const float vol = sigma * sqrt(T);
    float sum = 0.0f;
    for (uint p = 0; p < paths_per_item; p += 4) {
        st.ctr.x = p;
        uint4 bits = philox4x32_10(st.ctr, st.key);
        float2 z0 = box_muller(bits.x, bits.y);
        float2 z1 = box_muller(bits.z, bits.w);
        float4 z = (float4)(z0, z1);
        float4 ST = S0 * exp(drift + vol * z);
        sum += dot(fmax(ST - K, 0.0f), (float4)(1.0f));
    }
    payoff_sum[gid] = exp(-r * T) * sum / paths_per_item;
}
