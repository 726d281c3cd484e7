// Compound literals and their postfix operators.
struct P { int x, y; };
typedef struct P P;

int use(struct P p);

kernel void k(global int *out)
{
    struct P p = (struct P){1, 2};
    out[0] = (struct P){3, 4}.x;
    out[1] = use((P){.y = 5, .x = 6});
    int *arr = (int[]){10, 20, 30};
    out[2] = (int[3]){1, 2, 3}[1];
    out[3] = sizeof (struct P){0, 0};
    out[4] = ((P){7, 8}).y;
    float4 v = (float4){1.0f, 2.0f, 3.0f, 4.0f};
}
