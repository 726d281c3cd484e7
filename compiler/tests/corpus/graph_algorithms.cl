// Graph kernels: one level of frontier-based BFS over CSR adjacency, a Floyd-Warshall
// relaxation step for pivot k, and label-propagation connected components.
#define INF_DIST 0x3fffffff

__kernel void bfs_level(__global const int *row_ptr, __global const int *adj,
                        __global int *dist, __global const int *frontier, const int frontier_len,
                        __global int *next_frontier, volatile __global int *next_len, const int level)
{
    int t = get_global_id(0);
    if (t >= frontier_len)
        return;
    int v = frontier[t];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = adj[e];
        if (atomic_cmpxchg(&dist[u], INF_DIST, level + 1) == INF_DIST) {
            int slot = atomic_inc(next_len);
            next_frontier[slot] = u;
        }
    }
}

__kernel void floyd_warshall_step(__global int *d, __global int *next_hop, const int n, const int k)
{
    int i = get_global_id(1), j = get_global_id(0);
    if (i >= n || j >= n)
        return;
    int ik = d[i * n + k], kj = d[k * n + j];
    if (ik < INF_DIST && kj < INF_DIST && ik + kj < d[i * n + j]) {
        d[i * n + j] = ik + kj;
        next_hop[i * n + j] = next_hop[i * n + k];
    }
}

__kernel void cc_propagate(__global const int2 *edges, const int m, __global int *label,
                           __global int *changed)
{
    int e = get_global_id(0);
    if (e >= m)
        return;
    int2 uv = edges[e];
    int lu = label[uv.x], lv = label[uv.y];
    if (lu != lv) {
        int lo = min(lu, lv);
        atomic_min(&label[uv.x], lo);
        atomic_min(&label[uv.y], lo);
        *changed = 1;
    }
}
