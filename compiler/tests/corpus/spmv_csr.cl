// Sparse matrix-vector product y = A x in CSR: scalar (row per item) and vector (row per
// group with a local reduction) kernels, plus an ELL variant.
__kernel void spmv_csr_scalar(const uint rows, __global const uint *row_ptr,
                              __global const uint *col_idx, __global const float *vals,
                              __global const float *x, __global float *y)
{
    uint row = get_global_id(0);
    if (row >= rows)
        return;
    float sum = 0.0f;
    uint end = row_ptr[row + 1];
    for (uint jj = row_ptr[row]; jj < end; ++jj)
        sum += vals[jj] * x[col_idx[jj]];
    y[row] = sum;
}

__kernel void spmv_csr_vector(const uint rows, __global const uint *row_ptr,
                              __global const uint *col_idx, __global const float *vals,
                              __global const float *x, __global float *y, __local float *partial)
{
    uint row = get_group_id(0);
    uint lid = get_local_id(0), lsz = get_local_size(0);
    if (row >= rows)
        return;
    uint start = row_ptr[row], end = row_ptr[row + 1];
    float sum = 0.0f;
    for (uint jj = start + lid; jj < end; jj += lsz)
        sum = fma(vals[jj], x[col_idx[jj]], sum);
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = lsz >> 1; s > 0; s >>= 1) {
        if (lid < s)
            partial[lid] += partial[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[row] = partial[0];
}

__kernel void spmv_ell(const int rows, const int max_nnz, __global const int *cols,
                       __global const float *vals, __global const float *x, __global float *y)
{
    int row = get_global_id(0);
    if (row >= rows)
        return;
    float sum = 0.0f;
    for (int k = 0; k < max_nnz; ++k) {
        int c = cols[k * rows + row]; /* column-major for coalescing */
        if (c < 0)
            break;
        sum += vals[k * rows + row] * x[c];
    }
    y[row] = sum;
}
