// Every missing ';' is reported, each where the ';' belongs, and parsing goes on.
kernel void k(global int *out, int n)
{
    int a = 1
    int b = 2;
    out[0] = a + b
    out[1] = a;
    return
}

void g(void)
{
    for (int i = 0 i < 4; i++) { }
    do { } while (0)
    int c;
    while (1) break
}

int top_level = 3
int next_one;
