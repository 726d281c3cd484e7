// Structs and unions: members, nesting, anonymous members, bit-fields, tag references.
struct Point {
    float x, y;
};

struct Node {
    int value;
    struct Node *next;
    __global struct Node *far;
};

union Bits {
    float f;
    uint u;
    uchar bytes[4];
};

struct Outer {
    struct Inner {
        int a;
        int b[2];
    } inner;
    struct {
        float lo, hi;
    } range;
    union {
        int i;
        float f;
    };
    struct Point corners[4];
};

struct Flags {
    unsigned int ready : 1;
    unsigned int mode : 3, : 0;
    int : 4;
    int count;
};

struct Forward;
struct Forward *use_forward(struct Forward *f);

typedef struct Point Point;
typedef union { int i; float f; } Pun;

struct Empty {};

kernel void k(global struct Point *pts, global Pun *puns)
{
    struct Point local_copy = pts[0];
    struct { int x; } anon_var;
    union Bits b;
    b.f = 1.0f;
    pts[1].x = b.u;
    anon_var.x = 3;
}
