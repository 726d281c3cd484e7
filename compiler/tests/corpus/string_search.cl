// Text processing: brute-force multi-position pattern matching with the pattern in local
// memory, Horspool skip tables in private arrays, and ASCII case folding with uchar16.
__kernel void match_positions(__global const char *text, const int text_len,
                              __global const char *pattern, const int pat_len,
                              __global int *hits, __local char *pat)
{
    for (int i = get_local_id(0); i < pat_len; i += get_local_size(0))
        pat[i] = pattern[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    int pos = get_global_id(0);
    if (pos + pat_len > text_len)
        return;
    int k = 0;
    while (k < pat_len && text[pos + k] == pat[k])
        ++k;
    hits[pos] = k == pat_len;
}

__kernel void horspool_chunks(__global const uchar *text, const int text_len, __constant uchar *pat,
                              const int m, const int chunk, __global int *count)
{
    int skip[256];
    for (int c = 0; c < 256; ++c)
        skip[c] = m;
    for (int i = 0; i < m - 1; ++i)
        skip[pat[i]] = m - 1 - i;
    int start = get_global_id(0) * chunk;
    int end = min(start + chunk + m - 1, text_len);
    int found = 0;
    int i = start;
    while (i + m <= end) {
        int j = m - 1;
        while (j >= 0 && text[i + j] == pat[j])
            --j;
        if (j < 0)
            ++found;
        i += skip[text[i + m - 1]];
    }
    count[get_global_id(0)] = found;
}

__kernel void to_lower16(__global uchar16 *s)
{
    size_t i = get_global_id(0);
    uchar16 c = s[i];
    char16 is_upper = (c >= (uchar)'A') & (c <= (uchar)'Z');
    s[i] = c | (as_uchar16(is_upper) & (uchar16)(0x20));
}
