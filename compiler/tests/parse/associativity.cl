// Left-associative binary operators, right-associative assignment and ?:,
// prefix and postfix chains.
void assoc(int a, int b, int c, int d, int *p, int **pp)
{
    a = b - c - d;
    a = b / c / d;
    a = b << c << d;
    a = b < c < d;
    a = b == c != d;
    a = b && c && d;
    a = b || c || d;
    a = b = c = d;
    a += b -= c *= d;
    a /= b %= c <<= d;
    a >>= b &= c ^= d |= 1;
    a = b ? c : d ? a : b;
    a = b ? c ? d : a : b;
    a = b ? c = d : a;
    a = - - b;
    a = !!b;
    a = ~-!b;
    a = **pp;
    a = - -b--;
    a = ++*p;
    a = (*p)++;
    a = (int)(float)(char)b;
    a = a++ + ++b;
    a = b+++c;
    a = b---c;
}
