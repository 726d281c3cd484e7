// Heavy macro code: token pasting generates typed kernel variants, stringizing, nested
// helper expansion, and #if/#elif chains selecting the implementation.
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CAT3(a, b, c) CAT(CAT(a, b), c)
#define STR_(x) #x
#define STR(x) STR_(x)

#define VEC_TYPE(T, N) CAT(T, N)

#define DEFINE_AXPBY(T)                                                              \
    __kernel void CAT(axpby_, T)(const T a, __global const T *x, const T b,          \
                                 __global T *y, const uint n)                        \
    {                                                                                \
        uint i = get_global_id(0);                                                   \
        if (i < n)                                                                   \
            y[i] = a * x[i] + b * y[i];                                              \
    }

#define DEFINE_VEC_SUM(T, N)                                                         \
    __kernel void CAT3(vsum_, T, N)(__global const VEC_TYPE(T, N) *x,                \
                                    __global T *out)                                 \
    {                                                                                \
        VEC_TYPE(T, N) v = x[get_global_id(0)];                                      \
        T acc = 0;                                                                   \
        for (int k = 0; k < N; ++k)                                                  \
            acc += ((T *)&v)[k];                                                     \
        out[get_global_id(0)] = acc;                                                 \
    }

#define DEFINE_CLAMP_CONVERT(SRC, DST)                                               \
    __kernel void CAT3(cvt_, SRC, CAT(_to_, DST))(__global const SRC *in,           \
                                                  __global DST *out)                 \
    {                                                                                \
        size_t i = get_global_id(0);                                                 \
        out[i] = CAT(CAT(convert_, DST), _sat)(in[i]);                               \
    }

DEFINE_AXPBY(float)
DEFINE_AXPBY(int)
DEFINE_AXPBY(uint)
DEFINE_AXPBY(short)
DEFINE_AXPBY(long)

DEFINE_VEC_SUM(float, 4)
DEFINE_VEC_SUM(int, 8)
DEFINE_VEC_SUM(uchar, 16)

DEFINE_CLAMP_CONVERT(float, uchar)
DEFINE_CLAMP_CONVERT(int, short)
DEFINE_CLAMP_CONVERT(long, char)

#define ALGO_NAIVE 1
#define ALGO_UNROLLED 2
#define ALGO_VECTOR 3
#ifndef ALGO
#define ALGO ALGO_UNROLLED
#endif

__constant char algo_name[] = STR(ALGO);

__kernel void scale_selected(__global float *x, const float s, const uint n)
{
    uint i = get_global_id(0);
#if ALGO == ALGO_NAIVE
    if (i < n)
        x[i] *= s;
#elif ALGO == ALGO_UNROLLED && defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ >= 120
    uint base = i * 4;
    if (base + 3 < n) {
        x[base] *= s;
        x[base + 1] *= s;
        x[base + 2] *= s;
        x[base + 3] *= s;
    } else {
        for (uint k = base; k < n; ++k)
            x[k] *= s;
    }
#elif ALGO == ALGO_VECTOR
    if (i * 4 + 3 < n)
        vstore4(vload4(i, x) * s, i, x);
#else
#error "unknown ALGO"
#endif
    (void)algo_name[0];
}
