// Pragmas at file scope, before statements (attached), at the end of a block, in structs.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT ON

struct WithPragma {
    int a;
#pragma pack(1)
    int b;
};

kernel void k(global double *out, int n)
{
#pragma unroll
    for (int i = 0; i < 4; i++)
        out[i] = 0.0;
#pragma unroll 4
    while (n > 0) n--;
#pragma OPENCL EXTENSION cl_khr_fp64 : disable
    int after = 1;
    if (n) {
#pragma unroll 2
#pragma nounroll
        do { n++; } while (n < 8);
    }
    switch (n) {
    case 1:
#pragma unroll
        for (;;) break;
    }
    {
        n = 2;
#pragma trailing
    }
}
#pragma OPENCL EXTENSION all : disable
