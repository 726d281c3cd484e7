// GNU spellings of keywords that OpenCL headers use.
static __inline__ int f(int *__restrict p) { return *p; }
__inline int g(int x) { return x; }
int __attribute((unused)) h;
__const int c = 1;
__volatile__ int v;
__signed__ char sc;
_Bool flag;
bool other_flag = true;
