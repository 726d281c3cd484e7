// 2D Jacobi iteration for Laplace's equation with a residual, and a 3D 7-point stencil.
__kernel void jacobi2d(__global const float *u, __global float *unew, __global float *resid,
                       const int nx, const int ny)
{
    const int i = get_global_id(0), j = get_global_id(1);
    if (i == 0 || j == 0 || i >= nx - 1 || j >= ny - 1)
        return;
    const int c = j * nx + i;
    float v = 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]);
    unew[c] = v;
    resid[c] = fabs(v - u[c]);
}

__kernel void heat3d_7pt(__global const float *restrict in, __global float *restrict out,
                         const int nx, const int ny, const int nz, const float alpha)
{
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= nx || y >= ny || z >= nz)
        return;
    const size_t sxy = (size_t)nx * ny;
    const size_t c = z * sxy + (size_t)y * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[c] = in[c];
        return;
    }
    float lap = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - sxy] + in[c + sxy]
              - 6.0f * in[c];
    out[c] = in[c] + alpha * lap;
}

__kernel void jacobi2d_local(__global const float *u, __global float *unew, const int nx,
                             const int ny, __local float *t)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int lw = get_local_size(0) + 2;
    const int gx = get_global_id(0), gy = get_global_id(1);
    const int gxc = min(gx, nx - 1), gyc = min(gy, ny - 1);
    t[(ly + 1) * lw + lx + 1] = u[gyc * nx + gxc];
    if (lx == 0)
        t[(ly + 1) * lw] = u[gyc * nx + max(gxc - 1, 0)];
    if (lx == (int)get_local_size(0) - 1)
        t[(ly + 1) * lw + lx + 2] = u[gyc * nx + min(gxc + 1, nx - 1)];
    if (ly == 0)
        t[lx + 1] = u[max(gyc - 1, 0) * nx + gxc];
    if (ly == (int)get_local_size(1) - 1)
        t[(ly + 2) * lw + lx + 1] = u[min(gyc + 1, ny - 1) * nx + gxc];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gx <= 0 || gy <= 0 || gx >= nx - 1 || gy >= ny - 1)
        return;
    const int c = (ly + 1) * lw + lx + 1;
    unew[gy * nx + gx] = 0.25f * (t[c - 1] + t[c + 1] + t[c - lw] + t[c + lw]);
}
