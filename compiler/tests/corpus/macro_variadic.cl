// Variadic macros, __VA_ARGS__ forwarding, argument counting, conditional debug printf,
// function-like macros with empty arguments and multi-line #define chains.
#define DEBUG_LEVEL 0

#if DEBUG_LEVEL > 0
#define LOG(fmt, ...) printf("[%u] " fmt "\n", (uint)get_global_id(0), __VA_ARGS__)
#else
#define LOG(fmt, ...) ((void)0)
#endif

#define PRINT_ONCE(...) do { if (get_global_id(0) == 0) printf(__VA_ARGS__); } while (0)

#define NARGS_(_1, _2, _3, _4, _5, N, ...) N
#define NARGS(...) NARGS_(__VA_ARGS__, 5, 4, 3, 2, 1, 0)

#define SUM1(a) (a)
#define SUM2(a, b) ((a) + (b))
#define SUM3(a, b, c) ((a) + (b) + (c))
#define SUM4(a, b, c, d) ((a) + (b) + (c) + (d))
#define SUM_(n) SUM##n
#define SUM_N(n) SUM_(n)
#define SUM(...) SUM_N(NARGS(__VA_ARGS__))(__VA_ARGS__)

#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))
#define APPLY(f, ...) f(__VA_ARGS__)
#define EMPTY()
#define IDENTITY(x) x

__kernel void variadic_demo(__global const float *a, __global float *out, const uint n)
{
    uint i = get_global_id(0);
    if (i + 3 >= n)
        return;
    float s3 = SUM(a[i], a[i + 1], a[i + 2]);
    float s4 = SUM(a[i], a[i + 1], a[i + 2], a[i + 3]);
    float s1 = SUM(a[i]);
    float m = APPLY(MAX_OF, s3, s4);
    out[i] = IDENTITY(m EMPTY()) + s1 * NARGS(x, y);
    LOG("s3=%f s4=%f", s3, s4);
    PRINT_ONCE("n=%u\n", n);
    PRINT_ONCE("done\n");
}
