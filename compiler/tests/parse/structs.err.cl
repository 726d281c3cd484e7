// Struct and enum errors: each member is reported on its own.
struct A {
    int a
    float b;
    5;
    int c[;
    int d;
};
struct;
enum { ONE, 2, THREE };
enum;
union U { int x; float y } u;
struct B { int ok; } b;
