// The tiled matrix product of clift-bench: the kernel's __local tiles are memory at uniform
// addresses, so tb[k][lx] is one f32x4 load per step and ta[ly][k] one scalar load (ly is
// the same in a row's items); lx, ly, row and col are computed again in each region.
#define TILE 16
kernel void sgemm_tiled(global const float *a, global const float *b, global float *c, int n) {
    local float ta[TILE][TILE];
    local float tb[TILE][TILE];
    int lx = get_local_id(0), ly = get_local_id(1);
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        ta[ly][lx] = a[row * n + t * TILE + lx];
        tb[ly][lx] = b[(t * TILE + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
