// Built-in functions and constants, as the preprocessor leaves them.
constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void k(read_only image2d_t in, write_only image2d_t out, local float *scratch)
{
    int2 pos = (int2)(get_global_id(0), get_global_id(1));
    float4 px = read_imagef(in, smp, pos);
    write_imagef(out, pos, px * 2.0f);
    scratch[get_local_id(0)] = px.x;
    barrier(CLK_LOCAL_MEM_FENCE);
    mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    float inf = __builtin_inff();
    float nan = __builtin_nanf("");
    float m = fmax(px.x, inf);
    uint4 conv = convert_uint4_sat_rte(px);
    float4 back = as_float4(conv);
    event_t e = async_work_group_copy(scratch, scratch, 4, 0);
    wait_group_events(1, &e);
    int n = atomic_add((volatile global int *)0, 1);
    size_t groups = get_num_groups(0) * get_local_size(0);
    float2 sc = (float2)(sin(m), cos(m));
    float d = dot(px, back);
}
