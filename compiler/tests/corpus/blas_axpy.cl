// BLAS level 1: saxpy with strides, daxpy, sdot partials, snrm2, isamax.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void saxpy(const int n, const float alpha, __global const float *x, const int incx,
                    __global float *y, const int incy)
{
    int i = get_global_id(0);
    if (i < n)
        y[i * incy] = mad(alpha, x[i * incx], y[i * incy]);
}

__kernel void daxpy(const int n, const double alpha, __global const double *x,
                    __global double *y)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        y[i] = fma(alpha, x[i], y[i]);
}

__kernel void sscal_vec4(const int n4, const float alpha, __global float4 *x)
{
    int i = get_global_id(0);
    if (i < n4)
        x[i] *= alpha;
}

__kernel void sdot_partial(const int n, __global const float *x, __global const float *y,
                           __global float *partial, __local float *s)
{
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc = fma(x[i], y[i], acc);
    int lid = get_local_id(0);
    s[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = get_local_size(0) / 2; k > 0; k /= 2) {
        if (lid < k)
            s[lid] += s[lid + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = s[0];
}

__kernel void snrm2_serial(const int n, __global const float *x, __global float *result)
{
    /* scaled sum of squares, as reference BLAS does, to avoid overflow */
    float scale = 0.0f, ssq = 1.0f;
    for (int i = 0; i < n; ++i) {
        float a = fabs(x[i]);
        if (a != 0.0f) {
            if (scale < a) {
                ssq = 1.0f + ssq * (scale / a) * (scale / a);
                scale = a;
            } else {
                ssq += (a / scale) * (a / scale);
            }
        }
    }
    *result = scale * sqrt(ssq);
}

__kernel void isamax_group(const int n, __global const float *x, __global int *best_index,
                           __local float *vals, __local int *idxs)
{
    int lid = get_local_id(0);
    float bv = -1.0f;
    int bi = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        float v = fabs(x[i]);
        if (v > bv) {
            bv = v;
            bi = i;
        }
    }
    vals[lid] = bv;
    idxs[lid] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = get_local_size(0) >> 1; k > 0; k >>= 1) {
        if (lid < k && (vals[lid + k] > vals[lid] ||
                        (vals[lid + k] == vals[lid] && idxs[lid + k] < idxs[lid]))) {
            vals[lid] = vals[lid + k];
            idxs[lid] = idxs[lid + k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        best_index[get_group_id(0)] = idxs[0];
}
