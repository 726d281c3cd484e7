// Literals are kept as written: sema converts them.
void lit(void)
{
    int dec = 42;
    int oct = 052;
    int hex = 0x2A;
    int hexu = 0x2Au;
    uint u = 42u;
    uint U = 42U;
    long l = 42l;
    long L = 42L;
    ulong ul = 42ul;
    ulong LU = 42LU;
    ulong uL = 0xFFFFFFFFFFFFFFFFuL;
    float f1 = 1.0f;
    float f2 = 1.f;
    float f3 = .5f;
    float f4 = 1e10f;
    float f5 = 1.5E-3F;
    double d1 = 1.0;
    double d2 = 2.;
    double d3 = 1e+300;
    float hf1 = 0x1p-2f;
    double hf2 = 0x1.8p3;
    double hf3 = 0X1.FFFFFEP+127;
    float hf4 = 0x.8p1f;
    half h = 1.0h;
    char c1 = 'a';
    char c2 = '\n';
    char c3 = '\x41';
    char c4 = '\'';
    char c5 = '\0';
    char c6 = '\177';
    float inf = __builtin_inff();
    float nan = __builtin_nanf("");
}
