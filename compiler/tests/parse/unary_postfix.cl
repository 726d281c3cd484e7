// Prefix and postfix operators.
kernel void k(global int *p, int i)
{
    i++;
    i--;
    ++i;
    --i;
    p[i]++;
    ++p[i];
    *p = -i;
    *p = +i;
    *p = ~i;
    *p = !i;
    *p = *&i;
    int *q = &p[1];
    q++;
    (*q)--;
    *q++ = 3;
    *++q = 4;
    p[0] = i++ + i--;
    p[1] = -(-i);
    p[2] = - -i;
    p[3] = !!i;
    p[i++]++;
}
