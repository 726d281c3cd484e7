// GNU statement expressions: `({ ... })` after `(`, inside a cast, nested, empty.
kernel void k(global int *out, int x) {
    out[0] = ({ int t = x; t * 2; });
    out[1] = (int)({ x; });
    out[2] = ({ int a = ({ 1; }); a; }) + 1;
    ({ });
    if (({ x > 0; })) out[3] = 1;
}

// `__typeof__` of an expression and of a type name, as statement-expression macros use it.
kernel void t(global int *out) {
    __typeof__(out[0]) a = ({ __typeof(int) b = 1; b; });
    out[0] = a;
}
