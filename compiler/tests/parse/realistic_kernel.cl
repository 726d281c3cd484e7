// A tiled matrix multiply and a reduction, as applications write them.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void matmul(const int M, const int N, const int K,
            const __global float *A, const __global float *B, __global float *C)
{
    const int row = get_local_id(0);
    const int col = get_local_id(1);
    const int globalRow = 16 * get_group_id(0) + row;
    const int globalCol = 16 * get_group_id(1) + col;
    __local float Asub[16][16];
    __local float Bsub[16][16];
    float acc = 0.0f;
    const int numTiles = K / 16;
    for (int t = 0; t < numTiles; t++) {
        const int tiledRow = 16 * t + row;
        const int tiledCol = 16 * t + col;
        Asub[col][row] = A[tiledCol * M + globalRow];
        Bsub[col][row] = B[globalCol * K + tiledRow];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < 16; k++) {
            acc += Asub[k][row] * Bsub[col][k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[globalCol * M + globalRow] = acc;
}

__kernel void reduce(__global const double *in, __global double *out,
                     __local double *scratch, const unsigned int n)
{
    unsigned int lid = get_local_id(0);
    unsigned int gid = get_global_id(0);
    scratch[lid] = gid < n ? in[gid] : 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (unsigned int s = get_local_size(0) >> 1; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
