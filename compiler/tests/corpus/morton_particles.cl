// Particle spatial hashing: 30-bit Morton codes from positions, uniform-grid cell ids,
// cell start/end from sorted hashes, and SPH density with a poly6 kernel.
inline uint expand_bits(uint v)
{
    v = (v * 0x00010001u) & 0xFF0000FFu;
    v = (v * 0x00000101u) & 0x0F00F00Fu;
    v = (v * 0x00000011u) & 0xC30C30C3u;
    v = (v * 0x00000005u) & 0x49249249u;
    return v;
}

__kernel void morton_codes(__global const float4 *pos, const float4 lo, const float4 inv_extent,
                           __global uint *codes, __global uint *ids)
{
    uint i = get_global_id(0);
    float3 p = clamp((pos[i].xyz - lo.xyz) * inv_extent.xyz * 1024.0f, 0.0f, 1023.0f);
    uint3 q = convert_uint3(p);
    codes[i] = (expand_bits(q.x) << 2) | (expand_bits(q.y) << 1) | expand_bits(q.z);
    ids[i] = i;
}

__kernel void cell_ranges(__global const uint *sorted_hash, const uint n, __global uint *cell_start,
                          __global uint *cell_end)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    uint h = sorted_hash[i];
    if (i == 0 || sorted_hash[i - 1] != h)
        cell_start[h] = i;
    if (i == n - 1 || sorted_hash[i + 1] != h)
        cell_end[h] = i + 1;
}

inline int3 cell_of(float3 p, float cell_size) { return convert_int3_rtn(p / cell_size); }

inline uint hash_cell(int3 c, uint table_size)
{
    return ((uint)(c.x * 73856093) ^ (uint)(c.y * 19349663) ^ (uint)(c.z * 83492791)) % table_size;
}

__kernel void sph_density(__global const float4 *pos, __global const uint *sorted_ids,
                          __global const uint *cell_start, __global const uint *cell_end,
                          const uint table_size, const float h, const float mass,
                          __global float *density)
{
    uint i = get_global_id(0);
    float3 pi = pos[i].xyz;
    int3 c = cell_of(pi, h);
    float h2 = h * h;
    float poly6 = 315.0f / (64.0f * M_PI_F * pown(h, 9));
    float rho = 0.0f;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                uint cell = hash_cell(c + (int3)(dx, dy, dz), table_size);
                for (uint k = cell_start[cell]; k < cell_end[cell]; ++k) {
                    float3 d = pos[sorted_ids[k]].xyz - pi;
                    float r2 = dot(d, d);
                    if (r2 < h2) {
                        float x = h2 - r2;
                        rho += x * x * x;
                    }
                }
            }
    density[i] = mass * poly6 * rho;
}
