// 2D/3D NDRange indexing with global offsets, group/local ids, work_dim queries and
// volume operations (3D box filter, trilinear resampling of a volume in a buffer).
__kernel void index_dump(__global uint4 *ids)
{
    uint dim = get_work_dim();
    size_t gx = get_global_id(0) - get_global_offset(0);
    size_t gy = dim > 1 ? get_global_id(1) - get_global_offset(1) : 0;
    size_t gz = dim > 2 ? get_global_id(2) - get_global_offset(2) : 0;
    size_t linear = (gz * get_global_size(1) + gy) * get_global_size(0) + gx;
    size_t group_linear = (get_group_id(2) * get_num_groups(1) + get_group_id(1)) * get_num_groups(0)
                        + get_group_id(0);
    size_t local_linear = (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0)
                        + get_local_id(0);
    ids[linear] = (uint4)((uint)group_linear, (uint)local_linear, dim, (uint)linear);
}

__kernel void box3d(__global const float *vol, __global float *out, const int4 dims)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= dims.x || y >= dims.y || z >= dims.z)
        return;
    float acc = 0.0f;
    int cnt = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int3 p = (int3)(x + dx, y + dy, z + dz);
                if (any(p < 0) || any(p >= dims.xyz))
                    continue;
                acc += vol[(p.z * dims.y + p.y) * dims.x + p.x];
                cnt++;
            }
    out[(z * dims.y + y) * dims.x + x] = acc / cnt;
}

inline float voxel(__global const float *v, int4 d, int3 p)
{
    p = clamp(p, (int3)(0), d.xyz - 1);
    return v[(p.z * d.y + p.y) * d.x + p.x];
}

__kernel void resample_trilinear(__global const float *src, const int4 sd, __global float *dst,
                                 const int4 dd)
{
    int3 o = (int3)(get_global_id(0), get_global_id(1), get_global_id(2));
    if (any(o >= dd.xyz))
        return;
    float3 scale = convert_float3(sd.xyz) / convert_float3(dd.xyz);
    float3 p = (convert_float3(o) + 0.5f) * scale - 0.5f;
    float3 fl = floor(p);
    float3 t = p - fl;
    int3 b = convert_int3(fl);
    float c000 = voxel(src, sd, b), c100 = voxel(src, sd, b + (int3)(1, 0, 0));
    float c010 = voxel(src, sd, b + (int3)(0, 1, 0)), c110 = voxel(src, sd, b + (int3)(1, 1, 0));
    float c001 = voxel(src, sd, b + (int3)(0, 0, 1)), c101 = voxel(src, sd, b + (int3)(1, 0, 1));
    float c011 = voxel(src, sd, b + (int3)(0, 1, 1)), c111 = voxel(src, sd, b + (int3)(1, 1, 1));
    float c00 = mix(c000, c100, t.x), c10 = mix(c010, c110, t.x);
    float c01 = mix(c001, c101, t.x), c11 = mix(c011, c111, t.x);
    float c0 = mix(c00, c10, t.y), c1 = mix(c01, c11, t.y);
    dst[(o.z * dd.y + o.y) * dd.x + o.x] = mix(c0, c1, t.z);
}
