// Initializers: braced lists, designators, nesting, trailing commas.
struct Inner { int a, b; };
struct Outer { struct Inner in; int arr[4]; float f; };

constant struct Outer table[2] = {
    { .in = { .a = 1, .b = 2 }, .arr = { [0] = 1, [3] = 4 }, .f = 1.5f },
    [1] = { .in.a = 5, .arr[2] = 7, 3.0f, },
};

constant int grid[2][3] = { {1, 2, 3}, {4, 5, 6} };
constant int flat[6] = { 1, 2, 3, [5] = 6 };
constant char text[] = "hello";
constant int nothing[1] = {};

kernel void k(global int *out)
{
    struct Inner i = { 1, 2 };
    struct Inner j = { .b = 3 };
    int a[4] = { [1 + 1] = 9, [0] = 1 };
    float4 v = { 1.0f, 2.0f, 3.0f, 4.0f };
    struct Outer o = { { 1 }, { 2, 3 }, 4.0f };
    int scalar = { 5 };
    out[0] = i.a + j.b + a[2] + o.in.a + scalar;
}
