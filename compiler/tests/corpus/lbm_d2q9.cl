// Lattice Boltzmann D2Q9 collide-and-stream (BGK) with bounce-back obstacles and
// __constant lattice velocity/weight tables.
__constant int2 E[9] = {
    (int2)(0, 0), (int2)(1, 0), (int2)(0, 1), (int2)(-1, 0), (int2)(0, -1),
    (int2)(1, 1), (int2)(-1, 1), (int2)(-1, -1), (int2)(1, -1)
};
__constant float W[9] = { 4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9,
                          1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36 };
__constant int OPP[9] = { 0, 3, 4, 1, 2, 7, 8, 5, 6 };

__kernel void lbm_step(__global const float *f_in, __global float *f_out,
                       __global const uchar *solid, const int nx, const int ny, const float omega)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    const int cells = nx * ny;
    const int c = y * nx + x;
    float f[9];
    float rho = 0.0f;
    float2 u = (float2)(0.0f);
    for (int q = 0; q < 9; ++q) {
        f[q] = f_in[q * cells + c];
        rho += f[q];
        u += f[q] * convert_float2(E[q]);
    }
    if (solid[c]) {
        for (int q = 0; q < 9; ++q)
            f_out[OPP[q] * cells + c] = f[q];
        return;
    }
    u /= rho;
    float usq = 1.5f * dot(u, u);
    for (int q = 0; q < 9; ++q) {
        float eu = 3.0f * dot(convert_float2(E[q]), u);
        float feq = W[q] * rho * (1.0f + eu + 0.5f * eu * eu - usq);
        float post = f[q] + omega * (feq - f[q]);
        int2 dst = (int2)(x, y) + E[q];
        dst.x = (dst.x + nx) % nx;
        dst.y = (dst.y + ny) % ny;
        f_out[q * cells + dst.y * nx + dst.x] = post;
    }
}
