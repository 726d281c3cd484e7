// Structs, private arrays and a compound literal.
typedef struct { float2 pos; int id; } Item;

kernel void k(global Item *items, global float *out) {
    size_t i = get_global_id(0);
    Item it = items[i];
    float acc[4] = { 1.0f, 2.0f };
    for (int j = 0; j < 4; j++)
        acc[j] += it.pos.x * j;
    Item moved = (Item){ it.pos + (float2)(1.0f), it.id + 1 };
    items[i] = moved;
    out[i] = acc[0] + acc[3];
}
