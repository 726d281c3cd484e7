// Feature selection through #if chains on predefined macros, defined(), arithmetic in
// #if, #ifdef/#ifndef guards, #undef and redefinition, and __LINE__/__FILE__.
#ifndef CORPUS_GUARD
#define CORPUS_GUARD

#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 120
#define HAS_CL12 1
#else
#define HAS_CL12 0
#endif

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define REAL double
#define REAL4 double4
#define REAL_EPS DBL_EPSILON
#elif defined(cl_khr_fp16) && 0
#define REAL half
#else
#define REAL float
#define REAL4 float4
#define REAL_EPS FLT_EPSILON
#endif

#if (WIDTH_LOG2 + 0) > 0
#define WIDTH (1 << WIDTH_LOG2)
#elif !defined(WIDTH)
#define WIDTH 64
#endif

#if WIDTH % 16 == 0 && WIDTH >= 32
#define VECTORISE 1
#endif

#define ENDIAN_TAG 0
#ifdef __ENDIAN_LITTLE__
#undef ENDIAN_TAG
#define ENDIAN_TAG 1
#endif

#ifdef __FAST_RELAXED_MATH__
#define DIV(a, b) native_divide(a, b)
#else
#define DIV(a, b) ((a) / (b))
#endif

__kernel void normalise_rows(__global REAL *m, const int rows)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;
    __global REAL *row = m + r * WIDTH;
    REAL s = 0;
#ifdef VECTORISE
    REAL4 acc = (REAL4)(0);
    for (int c = 0; c < WIDTH; c += 4) {
        REAL4 v = vload4(0, row + c);
        acc += v * v;
    }
    s = acc.x + acc.y + acc.z + acc.w;
#else
    for (int c = 0; c < WIDTH; ++c)
        s += row[c] * row[c];
#endif
    s = sqrt(s);
    if (s > REAL_EPS)
        for (int c = 0; c < WIDTH; ++c)
            row[c] = DIV(row[c], s);
}

__kernel void build_info(__global int *info)
{
    info[0] = HAS_CL12;
    info[1] = ENDIAN_TAG;
    info[2] = __LINE__;
    info[3] = sizeof(__FILE__);
    info[4] = __OPENCL_VERSION__;
    info[5] = CL_VERSION_1_2;
}
#endif /* CORPUS_GUARD */
