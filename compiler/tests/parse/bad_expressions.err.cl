// Malformed expressions: each statement reports once and the next one parses.
void f(int a, int b)
{
    a = b + ;
    a = (b * 2;
    a = f(a, b;
    a = b ? a;
    a = b[1;
    a = * ;
    a = .x;
    a = b.;
    a = uint + 1;
    a = b @ 2;
    a = 1 + 2;
}
