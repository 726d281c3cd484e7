// Matrix transpose: naive, and tiled through padded local memory (coalesced both ways).
#define TILE_DIM 32
#define BLOCK_ROWS 8

__kernel void transpose_naive(__global float *out, __global const float *in, int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
}

__kernel __attribute__((reqd_work_group_size(TILE_DIM, BLOCK_ROWS, 1)))
void transpose_tiled(__global float *out, __global const float *in, int width, int height)
{
    __local float tile[TILE_DIM][TILE_DIM + 1];
    int bx = get_group_id(0) * TILE_DIM, by = get_group_id(1) * TILE_DIM;
    int tx = get_local_id(0), ty = get_local_id(1);

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int x = bx + tx, y = by + ty + j;
        if (x < width && y < height)
            tile[ty + j][tx] = in[y * width + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int x = by + tx, y = bx + ty + j;
        if (x < height && y < width)
            out[y * height + x] = tile[tx][ty + j];
    }
}

__kernel void transpose_uchar_inplace_square(__global uchar *m, int n)
{
    int i = get_global_id(1), j = get_global_id(0);
    if (i < n && j < n && j > i) {
        uchar t = m[i * n + j];
        m[i * n + j] = m[j * n + i];
        m[j * n + i] = t;
    }
}
