// Lower-triangular solve L x = b by column sweeps (one work-group), float2 complex scaling.
__kernel void strsv_lower(const int n, __global const float *L, const int ldl,
                          __global float *x)
{
    int lid = get_local_id(0);
    int lsz = get_local_size(0);
    for (int j = 0; j < n; ++j) {
        if (lid == 0)
            x[j] /= L[j * ldl + j];
        barrier(CLK_GLOBAL_MEM_FENCE);
        float xj = x[j];
        for (int i = j + 1 + lid; i < n; i += lsz)
            x[i] -= L[i * ldl + j] * xj;
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

inline float2 cmul(float2 a, float2 b)
{
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__kernel void cscal(const int n, const float2 alpha, __global float2 *x)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = cmul(alpha, x[i]);
}
