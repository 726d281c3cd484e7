// Enumerations: values, trailing commas, enumerators in later expressions.
enum Color { RED, GREEN = 4, BLUE, };

enum Flags {
    FLAG_A = 1 << 0,
    FLAG_B = 1 << 1,
    FLAG_AB = FLAG_A | FLAG_B,
    FLAG_MAX = sizeof(int) * 8 - 1
};

enum Color paint(enum Color c);

typedef enum { LOW, HIGH } Level;

enum __attribute__((packed)) Small { TINY __attribute__((deprecated)) = 1, };

kernel void k(global int *out)
{
    enum Color c = GREEN;
    Level l = HIGH;
    enum { LOCAL_A = 3, LOCAL_B } e = LOCAL_B;
    out[0] = c + l + e + FLAG_AB;
}
