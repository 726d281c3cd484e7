// async_work_group_copy / async_work_group_strided_copy with wait_group_events, prefetch,
// double-buffered tiles and barriers inside the tile loop.
#define TILE 128

__kernel void scale_tiles(__global const float *in, __global float *out, const float s,
                          const uint ntiles)
{
    __local float buf[2][TILE];
    uint lid = get_local_id(0);
    uint first = get_group_id(0) * ntiles;
    event_t ev = async_work_group_copy(buf[0], in + first * TILE, TILE, 0);
    for (uint t = 0; t < ntiles; ++t) {
        uint cur = t & 1;
        wait_group_events(1, &ev);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t + 1 < ntiles)
            ev = async_work_group_copy(buf[cur ^ 1], in + (first + t + 1) * TILE, TILE, 0);
        for (uint k = lid; k < TILE; k += get_local_size(0))
            buf[cur][k] *= s;
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t wr = async_work_group_copy(out + (first + t) * TILE, buf[cur], TILE, 0);
        wait_group_events(1, &wr);
    }
}

__kernel void gather_column(__global const float4 *matrix, const uint cols, const uint col,
                            __global float4 *column_out, __local float4 *tmp)
{
    uint rows = get_local_size(0);
    event_t e = async_work_group_strided_copy(tmp, matrix + col + get_group_id(0) * rows * cols,
                                              rows, cols, 0);
    wait_group_events(1, &e);
    uint lid = get_local_id(0);
    tmp[lid] = tmp[lid].wzyx;
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_copy(column_out + get_group_id(0) * rows, tmp, rows, 0);
    wait_group_events(1, &e);
}

__kernel void prefetch_sum(__global const int *data, __global int *out, const uint chunk)
{
    uint base = get_global_id(0) * chunk;
    prefetch(data + base, chunk);
    int s = 0;
    for (uint i = 0; i < chunk; ++i)
        s += data[base + i];
    out[get_global_id(0)] = s;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    read_mem_fence(CLK_LOCAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
}
