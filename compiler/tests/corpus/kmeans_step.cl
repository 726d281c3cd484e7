// One Lloyd iteration of k-means: assignment (centroids cached in local memory), then
// per-cluster partial sums with float atomics emulated by cmpxchg loops, and an update.
#define DIM 4
#define MAX_K 64

inline void atomic_add_float(volatile __global float *p, float v)
{
    union { unsigned int i; float f; } old_v, new_v;
    do {
        old_v.f = *p;
        new_v.f = old_v.f + v;
    } while (atomic_cmpxchg((volatile __global unsigned int *)p, old_v.i, new_v.i) != old_v.i);
}

__kernel void kmeans_assign(__global const float4 *points, const uint n,
                            __global const float4 *centroids, const uint k,
                            __global int *labels, __global uint *changed)
{
    __local float4 c[MAX_K];
    for (uint j = get_local_id(0); j < k; j += get_local_size(0))
        c[j] = centroids[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint i = get_global_id(0);
    if (i >= n)
        return;
    float4 p = points[i];
    float best = MAXFLOAT;
    int best_j = 0;
    for (uint j = 0; j < k; ++j) {
        float4 d = p - c[j];
        float dist = dot(d, d);
        if (dist < best) {
            best = dist;
            best_j = (int)j;
        }
    }
    if (labels[i] != best_j) {
        labels[i] = best_j;
        atomic_inc(changed);
    }
}

__kernel void kmeans_accumulate(__global const float *points /* n x DIM */, __global const int *labels,
                                const uint n, volatile __global float *sums, volatile __global uint *counts)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    int l = labels[i];
    for (int d = 0; d < DIM; ++d)
        atomic_add_float(&sums[l * DIM + d], points[i * DIM + d]);
    atomic_inc(&counts[l]);
}

__kernel void kmeans_update(__global float4 *centroids, __global const float4 *sums,
                            __global const uint *counts, const uint k)
{
    uint j = get_global_id(0);
    if (j < k && counts[j] > 0)
        centroids[j] = sums[j] / (float)counts[j];
}
