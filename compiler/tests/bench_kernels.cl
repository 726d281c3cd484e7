// The kernels of clift-bench's "kernels" section (all but the ray tracer, which is
// bench_raytrace.cl): their throughput rows, and the 70-line program of its build row.
kernel void vadd(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
kernel void saxpy(global const float *x, global float *y, float alpha) {
    size_t i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}
kernel void sgemm_naive(global const float *a, global const float *b, global float *c, int n) {
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
#define TILE 16
kernel void sgemm_tiled(global const float *a, global const float *b, global float *c, int n) {
    local float ta[TILE][TILE];
    local float tb[TILE][TILE];
    int lx = get_local_id(0), ly = get_local_id(1);
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        ta[ly][lx] = a[row * n + t * TILE + lx];
        tb[ly][lx] = b[(t * TILE + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
kernel void reduce(global const float *in, global float *out, local float *scratch) {
    size_t lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}
kernel void triad(global float *a, global const float *b, global const float *c, float s) {
    size_t i = get_global_id(0);
    a[i] = b[i] + s * c[i];
}
kernel void nbody(global const float4 *pos, global float4 *acc, int n, float eps2) {
    size_t i = get_global_id(0);
    float4 p = pos[i];
    float3 a = (float3)(0.0f);
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float3 d = q.xyz - p.xyz;
        float inv = rsqrt(dot(d, d) + eps2);
        a += d * (q.w * inv * inv * inv);
    }
    acc[i] = (float4)(a, 0.0f);
}
kernel void conv2d(global const float *in, global float *out, constant float *w,
                   int width, int height) {
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int dy = -2; dy <= 2; dy++) {
        int yy = clamp(y + dy, 0, height - 1);
        for (int dx = -2; dx <= 2; dx++) {
            int xx = clamp(x + dx, 0, width - 1);
            sum += w[(dy + 2) * 5 + dx + 2] * in[yy * width + xx];
        }
    }
    out[y * width + x] = sum;
}
kernel void mandelbrot(global int *out, int width, int height, int max_iter) {
    int x = get_global_id(0), y = get_global_id(1);
    float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / height;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    while (i < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        i++;
    }
    out[y * width + x] = i;
}
