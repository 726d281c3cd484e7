// BLAS level 2: y = alpha*A*x + beta*y (row-major), one row per work-group with a local
// reduction, plus the transposed variant with x cached in local memory.
#define ROW_MAJOR(r, c, ld) ((r) * (ld) + (c))

__kernel void sgemv_n(const uint m, const uint n, const float alpha,
                      __global const float *A, const uint lda,
                      __global const float *x, const float beta, __global float *y,
                      __local float *partial)
{
    uint row = get_group_id(0);
    uint lid = get_local_id(0);
    if (row >= m)
        return;
    float acc = 0.0f;
    for (uint c = lid; c < n; c += get_local_size(0))
        acc += A[ROW_MAJOR(row, c, lda)] * x[c];
    partial[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s)
            partial[lid] += partial[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[row] = alpha * partial[0] + (beta == 0.0f ? 0.0f : beta * y[row]);
}

#define TS 64
__kernel void sgemv_t(const uint m, const uint n, const float alpha,
                      __global const float *A, const uint lda,
                      __global const float *x, const float beta, __global float *y)
{
    __local float xs[TS];
    uint col = get_global_id(0);
    uint lid = get_local_id(0);
    float acc = 0.0f;
    for (uint t = 0; t < m; t += TS) {
        if (t + lid < m && lid < TS)
            xs[lid] = x[t + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        uint lim = min((uint)TS, m - t);
        if (col < n)
            for (uint k = 0; k < lim; ++k)
                acc += A[ROW_MAJOR(t + k, col, lda)] * xs[k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (col < n)
        y[col] = alpha * acc + beta * y[col];
}

__kernel void sger(const uint m, const uint n, const float alpha, __global const float *x,
                   __global const float *y, __global float *A, const uint lda)
{
    uint r = get_global_id(1), c = get_global_id(0);
    if (r < m && c < n)
        A[ROW_MAJOR(r, c, lda)] += alpha * x[r] * y[c];
}
