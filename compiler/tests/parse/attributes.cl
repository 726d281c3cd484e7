// GNU attributes on kernels, types, fields, variables, parameters and pointers.
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void tiled(__global float *out)
{
}

__attribute__((work_group_size_hint(64, 1, 1))) __attribute__((vec_type_hint(float4)))
kernel void hinted(global float4 *v)
{
}

kernel void several(global int *p) __attribute__((nosvm));

__kernel void multi(global uint *x) __attribute__((reqd_work_group_size(8,1,1), vec_type_hint(uint)));

typedef struct __attribute__((packed)) {
    char c;
    int i __attribute__((aligned(16)));
} Packed;

struct Tail {
    float x;
    float y;
} __attribute__((aligned(8)));

global float buffer_ptr __attribute__((endian(host)));
int counter __attribute__((aligned(sizeof(float4)))) = 0;

void params(global float * __attribute__((nosvm)) p, int n __attribute__((unused)));

__attribute__((always_inline)) __attribute__((const)) int pure(int x) { return x; }

__attribute__(()) int empty_list;
__attribute__((,,packed,)) struct Commas { int a; };
__attribute__((__aligned__)) int gnu_name;

typedef float f4 __attribute__((ext_vector_type(4)));
