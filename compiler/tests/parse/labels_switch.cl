// switch, case ranges of labels, default, named labels and goto.
int classify(int c)
{
    int r = 0;
    switch (c) {
    case 0:
    case 1:
    case 2:
        r = 1;
        break;
    case 'a': case 'b':
        r = 2;
        /* fall through */
    case 3 + 4:
        r += 3;
        break;
    default:
    case 100:
        r = -1;
    }
    switch (r) case 1: r = 5;
    switch (r) {}
again:
    if (r > 10)
        goto out;
    r++;
    goto again;
out:
first: second:
    ;
    return r;
}
