// Declaration errors: unknown types, missing names, bad initializers.
flaot x;
int 5;
float y = ;
int z = 1 +, w = 2;
void f(int a, 3);
void g(void) {
    foo bar;
    int = 4;
    unsigned long *p = (1 + ;
    int ok = 1;
}
typedef int T;
T T2 = T;
int last;
