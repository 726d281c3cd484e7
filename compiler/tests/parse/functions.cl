// Prototypes, definitions, helpers, recursion, calls.
int square(int x);
float mad_helper(float a, float b, float c);
static int counter(void);

int square(int x) { return x * x; }

float mad_helper(float a, float b, float c)
{
    return a * b + c;
}

int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

global int *pick(global int *a, global int *b, int which)
{
    return which ? a : b;
}

int (*get_array(void))[3];

void no_return_value(void) {}

int a_decl, *another, third = 3, fourth[2];

kernel void k(global int *out)
{
    out[0] = square(3) + fact(4);
    out[1] = (int)mad_helper(1.0f, 2.0f, 3.0f);
    *pick(out, out + 1, 0) = 7;
    no_return_value();
    int local_proto(int);
    extern int ext_counter;
}
