// The "lexer hack": typedef names are types until an ordinary identifier hides them.
typedef int T;
typedef float4 vec;
typedef vec *vecptr;

T global_t;

void params_hide(int T, float x)
{
    // Here T is the parameter: this is a multiplication.
    x = T * x;
}

void f(global T *p)
{
    T a = 1;
    {
        int T = 2;        // T is a variable in this block...
        a = T * 3;        // ...so this multiplies
        {
            typedef float T;   // ...and a type again here
            T *q = 0;
        }
        a = T;
    }
    T b = a;              // the outer typedef is back
    int uint = 5;         // a predefined type name hidden by a variable
    b = uint * 2;
    for (int T = 0; T < 4; T++)
        b += T;
    T after_loop = b;
    vecptr vp = 0;
    vec v = (vec)(1.0f, 2.0f, 3.0f, 4.0f);
}

void prototype_scope(int size_t, float n);
size_t uses_predefined_again(size_t n);

void label_named_like_type(void)
{
T:
    goto T;
}

int shadow_at_file_scope;
typedef int shadow_at_file_scope_t;
