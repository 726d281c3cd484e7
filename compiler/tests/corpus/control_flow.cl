// Control flow: switch with fallthrough and default in the middle, goto for early exits
// and retry loops, do-while, comma operator, nested breaks/continues, labels.
int classify(int v)
{
    int score = 0;
    switch (v & 7) {
    case 0:
        score += 1;
        /* fallthrough */
    case 1:
        score += 2;
        break;
    default:
        score -= 1;
        break;
    case 5:
    case 6: {
        int t = v >> 3;
        score = t * 3;
        break;
    }
    case 7:
        return -v;
    }
    return score;
}

__kernel void control(__global const int *in, __global int *out, const int n)
{
    int i = get_global_id(0);
    if (i >= n)
        goto done;
    int v = in[i];
    int acc = 0, iter = 0;
retry:
    do {
        acc += classify(v);
        v = (v * 1103515245 + 12345) & 0x7fffffff;
        if (v % 11 == 0)
            continue;
        if (acc > 1000)
            break;
    } while (++iter < 16);
    if (acc < 0 && iter < 32) {
        iter += 16;
        goto retry;
    }
    for (int a = 0, b = 10; a < b; ++a, --b) {
        if ((a ^ b) & 1)
            continue;
        for (;;) {
            acc ^= a * b;
            break;
        }
    }
    out[i] = acc;
done:
    return;
}

__kernel void find_first(__global const int *haystack, const int n, const int needle,
                         __global int *pos)
{
    int found = -1;
    int row = get_global_id(0);
    for (int j = 0; j < n; ++j) {
        for (int k = 0; k < 4; ++k) {
            if (haystack[(row * n + j) * 4 + k] == needle) {
                found = j * 4 + k;
                goto out;
            }
        }
    }
out:
    pos[row] = found;
}

__kernel void state_machine(__global const uchar *text, const int len, __global int *word_count)
{
    enum { OUTSIDE, INSIDE, ESCAPE } state = OUTSIDE;
    int words = 0, i = 0;
    while (i < len) {
        uchar c = text[i++];
        switch (state) {
        case OUTSIDE:
            if (c == '\\')
                state = ESCAPE;
            else if (c != ' ' && c != '\n' && c != '\t') {
                state = INSIDE;
                ++words;
            }
            break;
        case INSIDE:
            if (c == ' ' || c == '\n' || c == '\t')
                state = OUTSIDE;
            break;
        case ESCAPE:
            state = OUTSIDE;
            break;
        }
    }
    *word_count = words;
}
