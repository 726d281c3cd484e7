// 8x8 forward DCT-II (JPEG style) with a __constant cosine table and quantisation,
// one block per work-group of 8x8 items in local memory.
#define BLOCK 8

__constant float DCT_C[BLOCK][BLOCK] = {
    { 0.353553f, 0.353553f, 0.353553f, 0.353553f, 0.353553f, 0.353553f, 0.353553f, 0.353553f },
    { 0.490393f, 0.415735f, 0.277785f, 0.097545f, -0.097545f, -0.277785f, -0.415735f, -0.490393f },
    { 0.461940f, 0.191342f, -0.191342f, -0.461940f, -0.461940f, -0.191342f, 0.191342f, 0.461940f },
    { 0.415735f, -0.097545f, -0.490393f, -0.277785f, 0.277785f, 0.490393f, 0.097545f, -0.415735f },
    { 0.353553f, -0.353553f, -0.353553f, 0.353553f, 0.353553f, -0.353553f, -0.353553f, 0.353553f },
    { 0.277785f, -0.490393f, 0.097545f, 0.415735f, -0.415735f, -0.097545f, 0.490393f, -0.277785f },
    { 0.191342f, -0.461940f, 0.461940f, -0.191342f, -0.191342f, 0.461940f, -0.461940f, 0.191342f },
    { 0.097545f, -0.277785f, 0.415735f, -0.490393f, 0.490393f, -0.415735f, 0.277785f, -0.097545f },
};

__constant uchar QUANT[64] = {
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99
};

__kernel __attribute__((reqd_work_group_size(BLOCK, BLOCK, 1)))
void dct8x8_quant(__global const uchar *img, __global short *coef, const int width)
{
    __local float blk[BLOCK][BLOCK];
    __local float tmp[BLOCK][BLOCK];
    int u = get_local_id(0), v = get_local_id(1);
    int x = get_global_id(0), y = get_global_id(1);
    blk[v][u] = (float)img[y * width + x] - 128.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int k = 0; k < BLOCK; ++k)
        s += DCT_C[u][k] * blk[v][k];
    tmp[v][u] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    s = 0.0f;
    for (int k = 0; k < BLOCK; ++k)
        s += DCT_C[v][k] * tmp[k][u];
    coef[y * width + x] = convert_short_sat_rte(s / QUANT[v * BLOCK + u]);
}
