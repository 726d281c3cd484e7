// Double precision numerics: Newton iterations, Horner polynomials, trapezoid integration,
// double vectors and conversions.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__constant double EXP_TAYLOR[8] = {
    1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0
};

double horner(__constant double *c, int n, double x)
{
    double r = c[n - 1];
    for (int i = n - 2; i >= 0; --i)
        r = fma(r, x, c[i]);
    return r;
}

double newton_sqrt(double a)
{
    if (a <= 0.0)
        return 0.0;
    double x = a > 1.0 ? a * 0.5 : 1.0;
    for (int i = 0; i < 60; ++i) {
        double nx = 0.5 * (x + a / x);
        if (fabs(nx - x) <= DBL_EPSILON * nx)
            return nx;
        x = nx;
    }
    return x;
}

__kernel void dp_functions(__global const double *x, __global double4 *out)
{
    size_t i = get_global_id(0);
    double v = x[i];
    out[i] = (double4)(horner(EXP_TAYLOR, 8, v), newton_sqrt(fabs(v)), exp(v), sqrt(fabs(v)));
}

__kernel void trapezoid(const double a, const double b, const ulong n, __global double *partial)
{
    ulong gid = get_global_id(0), gsz = get_global_size(0);
    double h = (b - a) / (double)n;
    double sum = 0.0;
    for (ulong k = gid; k <= n; k += gsz) {
        double xk = a + k * h;
        double fk = 4.0 / (1.0 + xk * xk);
        sum += (k == 0 || k == n) ? 0.5 * fk : fk;
    }
    partial[gid] = sum * h;
}

__kernel void mixed_precision(__global const float *f, __global double *d, __global float2 *back)
{
    size_t i = get_global_id(0);
    double2 v = convert_double2(vload2(i, f));
    v = v * M_PI + (double2)(1.0e-300, -2.5e10);
    d[i] = v.x * v.y;
    back[i] = convert_float2_rtz(v);
    long bits = as_long(v.x);
    d[i] += as_double(bits & 0x7FFFFFFFFFFFFFFFL) > 1.0 ? 0.0 : 1.0;
}
