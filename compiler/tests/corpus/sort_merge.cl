// Bottom-up merge sort pass: each work-item merges two adjacent sorted runs, and a
// merge-path style binary search variant for one output element per work-item.
typedef float key_t;

__kernel void merge_runs(__global const key_t *src, __global key_t *dst, uint width, uint n)
{
    uint pair = get_global_id(0);
    uint lo = pair * 2 * width;
    if (lo >= n)
        return;
    uint mid = min(lo + width, n);
    uint hi = min(lo + 2 * width, n);
    uint i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = (src[j] < src[i]) ? src[j++] : src[i++];
    while (i < mid)
        dst[k++] = src[i++];
    while (j < hi)
        dst[k++] = src[j++];
}

/* rank of x in sorted a[0..len): count of elements < x (or <= x when inclusive) */
uint rank_of(__global const key_t *a, uint len, key_t x, bool inclusive)
{
    uint lo = 0, hi = len;
    while (lo < hi) {
        uint m = (lo + hi) >> 1;
        bool go_right = inclusive ? (a[m] <= x) : (a[m] < x);
        if (go_right)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

__kernel void merge_by_rank(__global const key_t *a, uint na,
                            __global const key_t *b, uint nb, __global key_t *out)
{
    uint i = get_global_id(0);
    if (i < na) {
        key_t x = a[i];
        out[i + rank_of(b, nb, x, false)] = x;
    } else if (i < na + nb) {
        uint j = i - na;
        key_t y = b[j];
        out[j + rank_of(a, na, y, true)] = y;
    }
}
