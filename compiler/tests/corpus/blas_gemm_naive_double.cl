// Reference DGEMM (column-major, BLAS style leading dimensions) and SYRK lower triangle.
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

#define IDX_CM(i, j, ld) ((j) * (ld) + (i))

__kernel void dgemm_nn(int m, int n, int k, real alpha, __global const real *a, int lda,
                       __global const real *b, int ldb, real beta, __global real *c, int ldc)
{
    int i = get_global_id(0);
    int j = get_global_id(1);
    if (i >= m || j >= n)
        return;
    real sum = 0;
    for (int l = 0; l < k; ++l)
        sum += a[IDX_CM(i, l, lda)] * b[IDX_CM(l, j, ldb)];
    c[IDX_CM(i, j, ldc)] = alpha * sum + beta * c[IDX_CM(i, j, ldc)];
}

__kernel void dsyrk_ln(int n, int k, real alpha, __global const real *a, int lda, real beta,
                       __global real *c, int ldc)
{
    int i = get_global_id(0), j = get_global_id(1);
    if (i >= n || j > i)
        return;
    real sum = (real)0;
    for (int l = 0; l < k; ++l)
        sum += a[IDX_CM(i, l, lda)] * a[IDX_CM(j, l, lda)];
    c[IDX_CM(i, j, ldc)] = alpha * sum + beta * c[IDX_CM(i, j, ldc)];
}
