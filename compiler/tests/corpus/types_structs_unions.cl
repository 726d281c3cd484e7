// Structs, nested structs, arrays of structs, unions for type punning, typedef'd enums,
// struct assignment and struct return, compound literals-free initialisers.
typedef enum { SHAPE_CIRCLE = 1, SHAPE_RECT, SHAPE_TRIANGLE = 10, SHAPE_COUNT } shape_kind;

enum blend_mode { BLEND_NONE, BLEND_ADD = 4, BLEND_MUL = BLEND_ADD * 2 };

typedef struct vec2f { float x, y; } vec2f;

typedef struct {
    shape_kind kind;
    vec2f p[3];
    float radius;
    uint color;
} shape_t;

typedef union {
    uint u;
    float f;
    uchar b[4];
    ushort h[2];
} word_t;

struct aabb {
    vec2f lo, hi;
};

static struct aabb bounds_of(const shape_t *s)
{
    struct aabb b;
    switch (s->kind) {
    case SHAPE_CIRCLE:
        b.lo.x = s->p[0].x - s->radius;
        b.lo.y = s->p[0].y - s->radius;
        b.hi.x = s->p[0].x + s->radius;
        b.hi.y = s->p[0].y + s->radius;
        break;
    case SHAPE_RECT:
        b.lo = s->p[0];
        b.hi = s->p[1];
        break;
    case SHAPE_TRIANGLE:
    default:
        b.lo.x = fmin(s->p[0].x, fmin(s->p[1].x, s->p[2].x));
        b.lo.y = fmin(s->p[0].y, fmin(s->p[1].y, s->p[2].y));
        b.hi.x = fmax(s->p[0].x, fmax(s->p[1].x, s->p[2].x));
        b.hi.y = fmax(s->p[0].y, fmax(s->p[1].y, s->p[2].y));
        break;
    }
    return b;
}

__kernel void shape_bounds(__global const shape_t *shapes, __global struct aabb *boxes,
                           __global uint *area_bits, const enum blend_mode mode)
{
    size_t i = get_global_id(0);
    shape_t s = shapes[i];
    struct aabb b = bounds_of(&s);
    boxes[i] = b;
    word_t w;
    w.f = (b.hi.x - b.lo.x) * (b.hi.y - b.lo.y);
    if (mode == BLEND_MUL)
        w.b[3] ^= 0x80;
    else if (mode == BLEND_ADD)
        w.h[0] = 0;
    area_bits[i] = w.u + SHAPE_COUNT;
}

typedef struct {
    int count;
    float values[8];
    struct { char tag; short id; } meta;
} record_t;

__kernel void records(__global record_t *recs, __global float *sums)
{
    size_t i = get_global_id(0);
    record_t r = recs[i];
    float s = 0.0f;
    for (int k = 0; k < r.count && k < 8; ++k)
        s += r.values[k];
    r.meta.tag = (char)(s > 0.0f);
    r.meta.id = (short)i;
    recs[i] = r;
    sums[i] = s;
    __global record_t *p = &recs[i];
    p->values[0] = sizeof(record_t) + sizeof(word_t);
}
