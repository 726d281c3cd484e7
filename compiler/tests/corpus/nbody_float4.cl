// All-pairs n-body with float4 positions (w = mass) tiled through local memory, softened
// gravity, leapfrog integration.
#define SOFTENING2 1e-3f

inline float3 body_accel(float4 bi, float4 bj, float3 acc)
{
    float3 r = bj.xyz - bi.xyz;
    float dist2 = dot(r, r) + SOFTENING2;
    float inv = rsqrt(dist2);
    float inv3 = inv * inv * inv;
    return acc + r * (bj.w * inv3);
}

__kernel void nbody_step(__global const float4 *pos_in, __global float4 *pos_out,
                         __global float4 *vel, const uint n, const float dt,
                         __local float4 *cache)
{
    uint gid = get_global_id(0);
    uint lid = get_local_id(0);
    uint lsz = get_local_size(0);
    float4 me = gid < n ? pos_in[gid] : (float4)(0.0f);
    float3 acc = (float3)(0.0f);

    for (uint tile = 0; tile < n; tile += lsz) {
        uint j = tile + lid;
        cache[lid] = j < n ? pos_in[j] : (float4)(0.0f, 0.0f, 0.0f, 0.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < lsz; ++k)
            acc = body_accel(me, cache[k], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n) {
        float4 v = vel[gid];
        v.xyz += acc * dt;
        me.xyz += v.xyz * dt;
        vel[gid] = v;
        pos_out[gid] = me;
    }
}

__kernel void nbody_energy(__global const float4 *pos, __global const float4 *vel,
                           __global float *kinetic, const uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        float4 v = vel[i];
        kinetic[i] = 0.5f * pos[i].w * dot(v.xyz, v.xyz);
    }
}
