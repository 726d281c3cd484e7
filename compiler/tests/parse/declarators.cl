// Declarator puzzles: C's inside-out declarators with OpenCL's address spaces.
kernel void k(global float (*rows)[4], local int *ptrs_holder)
{
    int (*pa)[8];                 // pointer to array of 8 int
    local int *ap[4];             // array of 4 pointers to int (pointee in __local)
    __local int *__private lp[2]; // the pointers themselves in __private
    int **pp;
    const int *const cp = 0;
    global int *local *glp;       // pointer in local to pointer to global int
    int (*fp)(int, float);        // pointer to function (parsed; sema rejects)
    int (*fpa[3])(void);          // array of function pointers
    float (*(*puzzle)(int))[4];   // pointer to function returning pointer to array
    int m[2][3];
    int ((paren));
    char *(*(*x[2])(void))[5];
    unsigned long int uli;
    long unsigned lu;
    short int si;
    signed char sc;
    unsigned u;
    int v = sizeof(int (*)[3]) + sizeof(int *[3]) + sizeof(int (*)(void));
    rows[0][1] = (float)m[1][2];
}

int (*return_array_ptr(int n))[4];
float *(*return_fn_ptr(void))(int);
void takes_array(int a[static 4], int b[const], int c[]);
void abstract_params(int *, float [4], int (*)(int), local char *);
