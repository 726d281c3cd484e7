//! Vectorization across work-items (`codegen/simd`): every kernel here runs vectorized and
//! scalar (`CodegenOptions::scalar_only`, what `CLIFT_VECTORIZE=0` does), and the outputs
//! must be bit-identical and equal to the value computed here on the host.

use std::sync::Arc;

use clift_compiler::build::{BuildOptions, build};
use clift_compiler::codegen::CodegenOptions;
use clift_compiler::frontend::sema;
use clift_compiler::kernel::{KernelCode, ParamKind, WorkGroup};

/// The kernel named `name` of `source`, vectorized (or not).
fn kernel(source: &str, name: &str, scalar_only: bool) -> Arc<KernelCode> {
    kernel_with(source, name, scalar_only, false)
}

/// `kernel`, built with `-cl-mad-enable` or not.
fn kernel_with(source: &str, name: &str, scalar_only: bool, mad_enable: bool) -> Arc<KernelCode> {
    let options = BuildOptions {
        codegen: CodegenOptions {
            scalar_only,
            mad_enable,
            ..CodegenOptions::default()
        },
        // As on clift's device: doubles without a pragma.
        sema: sema::Options {
            fp64_supported: true,
            fp64_by_default: true,
            ..Default::default()
        },
        ..BuildOptions::default()
    };
    let built = match build("v.cl", source, &options) {
        Ok(b) => b,
        Err(log) => panic!("build failed:\n{log}"),
    };
    built
        .kernels
        .into_iter()
        .find(|k| k.name == name)
        .expect("the kernel")
}

/// An NDRange: global and local sizes and offsets of two dimensions.
#[derive(Clone, Copy)]
struct Range {
    global: [usize; 2],
    local: [usize; 2],
    offset: [usize; 2],
}

fn range_1d(global: usize, local: usize) -> Range {
    Range {
        global: [global, 1],
        local: [local, 1],
        offset: [0, 0],
    }
}

/// Runs `kernel` over `range` with `args` (one u64 per parameter: pointers or values).
fn run(kernel: &KernelCode, range: Range, args: &[u64]) {
    let mut block = vec![0u8; kernel.args_size.max(8)];
    for (p, v) in kernel.params.iter().zip(args) {
        let size = match p.kind {
            ParamKind::Value { size } => size,
            _ => 8,
        };
        block[p.offset..p.offset + size].copy_from_slice(&v.to_ne_bytes()[..size]);
    }
    let groups = [
        range.global[0] / range.local[0],
        range.global[1] / range.local[1],
    ];
    for gy in 0..groups[1] {
        for gx in 0..groups[0] {
            let group = WorkGroup {
                work_dim: if range.global[1] > 1 { 2 } else { 1 },
                _pad: 0,
                global_offset: [range.offset[0] as u64, range.offset[1] as u64, 0],
                global_size: [range.global[0] as u64, range.global[1] as u64, 1],
                local_size: [range.local[0] as u64, range.local[1] as u64, 1],
                num_groups: [groups[0] as u64, groups[1] as u64, 1],
                group_id: [gx as u64, gy as u64, 0],
                local_memory: std::ptr::null_mut(),
                private_frames: std::ptr::null_mut(),
                printf_buffer: std::ptr::null(),
                watchdog: std::ptr::null(),
                safe: std::ptr::null(),
            };
            // SAFETY: the argument block holds every parameter; the buffers outlive the call.
            unsafe { (kernel.entry)(block.as_ptr(), &group) };
        }
    }
}

/// Runs kernel `name` of `source` both ways over `range`; `make` builds the buffers (the
/// last one is the output) and the argument list from them. Returns the output (the same
/// both ways, bit for bit).
fn both<T: Copy + PartialEq + std::fmt::Debug + Bits>(
    source: &str,
    name: &str,
    range: Range,
    make: &dyn Fn() -> (Vec<Vec<T>>, Vec<u64>),
    vectorized: bool,
) -> Vec<T> {
    both_with(source, name, range, make, vectorized, false)
}

/// `both`, built with `-cl-mad-enable` or not.
fn both_with<T: Copy + PartialEq + std::fmt::Debug + Bits>(
    source: &str,
    name: &str,
    range: Range,
    make: &dyn Fn() -> (Vec<Vec<T>>, Vec<u64>),
    vectorized: bool,
    mad_enable: bool,
) -> Vec<T> {
    let mut outputs = Vec::new();
    for scalar_only in [true, false] {
        let k = kernel_with(source, name, scalar_only, mad_enable);
        if !scalar_only {
            assert_eq!(
                k.vectorized.is_ok(),
                vectorized,
                "{name}: vectorized: {:?}",
                k.vectorized
            );
        }
        let (mut buffers, values) = make();
        let mut args: Vec<u64> = buffers.iter_mut().map(|b| b.as_mut_ptr() as u64).collect();
        args.extend(values);
        run(&k, range, &args);
        outputs.push(buffers.pop().expect("an output"));
    }
    let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<u64>>();
    assert_eq!(
        bits(&outputs[0]),
        bits(&outputs[1]),
        "{name}: vectorized and scalar differ"
    );
    outputs.pop().expect("two runs")
}

trait Bits {
    fn bits(&self) -> u64;
}
impl Bits for f32 {
    fn bits(&self) -> u64 {
        u64::from(self.to_bits())
    }
}
impl Bits for i32 {
    fn bits(&self) -> u64 {
        *self as u32 as u64
    }
}
impl Bits for f64 {
    fn bits(&self) -> u64 {
        self.to_bits()
    }
}
impl Bits for i64 {
    fn bits(&self) -> u64 {
        *self as u64
    }
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 2000) as f32 / 1000.0 - 1.0
        })
        .collect()
}

const SOURCE: &str = r#"
kernel void vadd(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
kernel void triad(global const float *b, global const float *c, global float *a, float s) {
    size_t i = get_global_id(0);
    a[i] = b[i] + s * c[i];
}
kernel void saxpy(global const float *x, global float *y, float alpha) {
    int i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}
kernel void divergent(global const float *a, global float *out) {
    int i = get_global_id(0);
    if (i % 3 == 0) out[i] = a[i] * 2.0f;
    else if (a[i] > 0.25f) out[i] = -a[i];
}
kernel void ternary(global const float *a, global float *out) {
    uint i = get_global_id(0);
    float x = a[i];
    out[i] = x > 0.0f ? sqrt(x) : fabs(x) * 2.0f + min(x, -0.5f) + clamp(x, -0.3f, 0.3f);
}
kernel void mandel(global int *out, int width, int height, int max_iter) {
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
kernel void nbody1(global const float *x, global float *out, int n, float eps) {
    size_t i = get_global_id(0);
    float xi = x[i], acc = 0.0f;
    for (int j = 0; j < n; j++) {
        float d = x[j] - xi;
        acc += d * rsqrt(d * d + eps);
    }
    out[i] = acc;
}
kernel void conv(global const float *in, constant float *w, global float *out, int n) {
    int i = get_global_id(0);
    float sum = 0.0f;
    for (int k = -2; k <= 2; k++)
        sum += w[k + 2] * in[clamp(i + k, 0, n - 1)];
    out[i] = sum;
}
kernel void intops(global int *out) {
    int i = get_global_id(0);
    int d = (i % 4 == 0) ? 0 : i % 7;
    int r = -1;
    if (d != 0) r = (i * 13) / d + (i * 5) % d;
    uint u = (uint)i * 2654435761u;
    out[i] = r + (int)(u >> 7) + ((i << 3) ^ (i >> 1)) + max(i, 9) - min(i & 5, 3)
        + clamp(i - 20, -4, 4) + (int)(u / 3u);
}
kernel void gather(global const int *a, global int *out, int n) {
    int i = get_global_id(0);
    out[(i * 3) % n] = a[(i * 7) % n] + i;
}
kernel void indexed(global const int *a, global int *out, int n) {
    int i = get_global_id(0);
    int j = max(i, 0);
    out[j] = a[j ^ 1] + 1;
    out[min(i + n, 2 * n - 1)] = a[(uint)i];
}
kernel void offsets(global int *out) {
    int i = get_global_id(0) - get_global_offset(0);
    out[i] = get_global_id(0) * 10 + get_local_id(0);
}
kernel void grid(global int *out, int w) {
    int x = get_global_id(0), y = get_global_id(1);
    out[y * w + x] = x * 100 + y + get_local_id(1) * 7;
}
kernel void early(global int *out, int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    out[i] = i * 2;
}
kernel void loops(global int *out) {
    int i = get_global_id(0);
    int s = 0;
    for (int k = 0; k < 100; k++) {
        if (k > i % 13) break;
        if (k % 3 == 1) continue;
        s += k;
    }
    int j = i;
    do { s += j & 1; j >>= 1; } while (j != 0);
    out[i] = s;
}
kernel void wide(global long *out) {
    int i = get_global_id(0);
    long v = (long)i * 3000000000L;
    out[i] = (v >> 3) + (v / 7);
}
int twice(int x) { return 2 * x + get_global_id(0); }
kernel void calls(global int *out) {
    int i = get_global_id(0);
    out[i] = twice(i) + 1;
}
kernel void counter(global int *out) {
    int i = get_global_id(0);
    if (i % 2 == 1) atomic_add(&out[0], i);
}
kernel void compound(global float *a, global float *out) {
    int i = get_global_id(0);
    a[i] *= 3.0f;
    a[i] += 1.0f;
    int k = i;
    k += 5;
    k *= 3;
    k--;
    out[i] = k + a[i];
}
kernel void soa(global const float4 *a, global float *out) {
    int i = get_global_id(0);
    float4 v = a[i];
    out[i] = v.x + v.y * v.z - v.w;
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
kernel void vec2ops(global const float2 *a, global float2 *out) {
    int i = get_global_id(0);
    float2 v = a[i];
    float2 w = (float2)(v.y, -v.x) * 2.0f;
    if (v.x > 0.0f) w = clamp(w, -0.5f, 0.5f) + sqrt(fabs(v));
    out[i] = min(w, v.yx) + (float2)(i);
}
kernel void shadows(global const float *spheres, global float *out, int count) {
    int i = get_global_id(0);
    int hit = i % 3 - 1;
    float acc = 0.0f;
    if (hit >= 0) {
        int seen = 0;
        for (int s = 0; s < count; s++) {
            float r = spheres[2 * s] + spheres[2 * s + 1];
            if (s != hit && r > 0.5f) acc += r * i;
            seen += 2;
        }
        acc += seen;
    }
    out[i] = acc;
}
kernel void dbl(global const double *a, global double *out, double s) {
    int i = get_global_id(0);
    double x = a[i];
    float g = (float)i * 0.25f;
    double y = x * s + (double)g - (double)i;
    if (x > 0.25) y = sqrt(y * y) / x;
    else y = mad(y, x, 1.5);
    out[i] = y + fabs(x) + (double)(float)(x * 3.0) + (x != y);
}
kernel void dvec(global const double4 *a, global double4 *out) {
    int i = get_global_id(0);
    double4 v = a[i];
    double4 w = v * v - (double4)(1.0, 2.0, 3.0, 4.0);
    if (i % 3 == 1) w = sqrt(fabs(w));
    out[i] = w + v;
}
/* The hint keeps it vectorized (the cost rule gives double16 chains the scalar row). */
__attribute__((vec_type_hint(double))) kernel void dp16(global double *ptr, double _A) {
    double16 x = (double16)(_A, (_A+1), (_A+2), (_A+3), (_A+4), (_A+5), (_A+6), (_A+7),
                    (_A+8), (_A+9), (_A+10), (_A+11), (_A+12), (_A+13), (_A+14), (_A+15));
    double16 y = (double16)get_local_id(0);
    for (int i = 0; i < 3; i++) {
        x = mad(y, x, y); y = mad(x, y, x);
    }
    double2 t = (y.S01) + (y.S23) + (y.S45) + (y.S67) + (y.S89) + (y.SAB) + (y.SCD) + (y.SEF);
    ptr[get_global_id(0)] = t.S0 + t.S1;
}
kernel void longs(global const long *a, global long *out, long k) {
    int i = get_global_id(0);
    long v = a[i] + k;
    long w = (v ^ (long)i) - (v & 0xff);
    if (v == w) w = 7;
    out[i] = (long)((ulong)w + (ulong)(v << 3));
}
kernel void widen(global const int *a, global long *out) {
    int i = get_global_id(0);
    int x = a[i];
    uint u = (uint)x * 3u;
    long w = (long)x + (long)u;
    int back = (int)(w >> 1) + (int)w;
    out[i] = w + (long)(ulong)u + back;
}
__attribute__((vec_type_hint(double)))
kernel void dvload(global const double *a, global double *out) {
    size_t i = get_global_id(0);
    double4 v = vload4(i, a);
    double2 w = vload2(i, a + 1);
    if (i % 4 != 2) vstore4(v * 2.0 + (double4)(w, w.yx), i, out);
}
kernel void dswz(global const double4 *a, global double *out, double s) {
    int i = get_global_id(0);
    double4 v = a[i];
    double4 w = v.wzyx * (double4)(s) + (double4)(v.xy, -v.z, v.w);
    double2 h = w.hi - w.lo;
    out[i] = h.x * h.y - w.y;
}
struct pair { float f; int n; };
kernel void record(global const float *a, global float *out) {
    int i = get_global_id(0);
    struct pair p;
    p.f = a[i];
    p.n = i;
    out[i] = p.f + p.n;
}
kernel void wide16(global const float16 *a, global float16 *out, float s) {
    int i = get_global_id(0);
    float16 v = a[i];
    float16 w = v * s + v.sfedcba9876543210;
    if (v.s3 > 0.0f) w = mad(w, v, (float16)(1.0f)) + (float16)(v.hi, v.lo);
    out[i] = w;
}
kernel void wide8i(global const int8 *a, global int8 *out) {
    int i = get_global_id(0);
    int8 v = a[i];
    int8 w = (v << 2) ^ (int8)(i);
    out[i] = max(w, v.s76543210) + (int8)(1, 2, 3, 4, 5, 6, 7, 8) + v.even.s00112233;
}
__attribute__((vec_type_hint(float)))
kernel void vloads(global const float *a, global float *out) {
    size_t i = get_global_id(0);
    float16 v = vload16(i, a);
    float8 h = vload8(i, a + 3);
    vstore16(v * 2.0f + (float16)(h, h.odd, h.even), i, out);
}
kernel void vmasked(global const uint *a, global uint *out, uint n) {
    int i = get_global_id(0);
    if (i % 3 != 0) {
        uint4 v = vload4(i, a);
        vstore4(v + (uint4)(n), i, out);
    }
    uint2 p = vload2(i * 2, a);
    vstore2(p.yx, i, out + 256);
}
__attribute__((vec_type_hint(float)))
kernel void bw16(global const float16 *A, global float *B) {
    int id = get_group_id(0) * get_local_size(0) * 4 + get_local_id(0);
    float16 sum = 0;
    for (int i = 0; i < 4; i++) {
        sum += A[id];
        id += get_local_size(0);
    }
    float4 t = sum.s0123 + sum.s4567 + sum.s89ab + sum.scdef;
    B[get_global_id(0)] = t.x + t.y + t.z + t.w;
}
kernel void sp16(global float *ptr, float _A) {
    float16 x = (float16)(_A, (_A+1), (_A+2), (_A+3), (_A+4), (_A+5), (_A+6), (_A+7),
                    (_A+8), (_A+9), (_A+10), (_A+11), (_A+12), (_A+13), (_A+14), (_A+15));
    float16 y = (float16)get_local_id(0);
    for (int i = 0; i < 3; i++) {
        x = mad(y, x, y); y = mad(x, y, x);
    }
    float2 t = (y.S01) + (y.S23) + (y.S45) + (y.S67) + (y.S89) + (y.SAB) + (y.SCD) + (y.SEF);
    ptr[get_global_id(0)] = t.S0 + t.S1;
}
"#;

#[test]
fn vector_add_triad_saxpy() {
    // Rows of 1 to 3 items are shorter than a vectorized step: the scalar row runs them.
    for (global, local) in [(64, 16), (37, 37), (30, 10), (5, 1), (6, 2), (9, 3), (7, 7)] {
        let r = range_1d(global, local);
        let (a, b) = (floats(global, 1), floats(global, 2));
        let out = both(
            SOURCE,
            "vadd",
            r,
            &|| (vec![a.clone(), b.clone(), vec![0.0; global]], vec![]),
            true,
        );
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(out, want);
        let out = both(
            SOURCE,
            "triad",
            r,
            &|| {
                (
                    vec![a.clone(), b.clone(), vec![0.0; global]],
                    vec![2.5f32.to_bits() as u64],
                )
            },
            true,
        );
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + 2.5 * y).collect();
        assert_eq!(out, want);
        let out = both(
            SOURCE,
            "saxpy",
            r,
            &|| (vec![a.clone(), b.clone()], vec![1.5f32.to_bits() as u64]),
            true,
        );
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| 1.5 * x + y).collect();
        assert_eq!(out, want);
    }
}

#[test]
fn divergent_if_and_conditional() {
    let n = 43;
    let a = floats(n, 3);
    let out = both(
        SOURCE,
        "divergent",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![7.0; n]], vec![]),
        true,
    );
    let want: Vec<f32> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                a[i] * 2.0
            } else if a[i] > 0.25 {
                -a[i]
            } else {
                7.0
            }
        })
        .collect();
    assert_eq!(out, want);
    let out = both(
        SOURCE,
        "ternary",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![0.0; n]], vec![]),
        true,
    );
    let want: Vec<f32> = a
        .iter()
        .map(|&x| {
            if x > 0.0 {
                x.sqrt()
            } else {
                x.abs() * 2.0 + if x > -0.5 { -0.5 } else { x } + x.clamp(-0.3, 0.3)
            }
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn mandelbrot_runs_while_any_lane_iterates() {
    let (w, h) = (22, 5);
    let r = Range {
        global: [w, h],
        local: [11, 1],
        offset: [0, 0],
    };
    let out = both(
        SOURCE,
        "mandel",
        r,
        &|| (vec![vec![0i32; w * h]], vec![w as u64, h as u64, 50]),
        true,
    );
    let mut want = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let cr = -2.0f32 + 3.0 * x as f32 / w as f32;
            let ci = -1.5f32 + 3.0 * y as f32 / h as f32;
            let (mut zr, mut zi, mut i) = (0.0f32, 0.0f32, 0);
            while i < 50 && zr * zr + zi * zi < 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                i += 1;
            }
            want.push(i);
        }
    }
    assert_eq!(out, want);
}

#[test]
fn uniform_loop_and_per_lane_builtins() {
    let n = 21;
    let x = floats(n, 9);
    let out = both(
        SOURCE,
        "nbody1",
        range_1d(n, 7),
        &|| {
            (
                vec![x.clone(), vec![0.0; n]],
                vec![n as u64, 0.01f32.to_bits() as u64],
            )
        },
        true,
    );
    // rsqrt in float is the correctly rounded 1/sqrt of the double (clift's definition).
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let mut acc = 0.0f32;
            for j in 0..n {
                let d = x[j] - x[i];
                acc += d * (1.0 / ((d * d + 0.01) as f64).sqrt()) as f32;
            }
            acc
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn convolution_gathers_clamped_neighbours() {
    let n = 26;
    let input = floats(n, 5);
    let w = vec![0.1f32, 0.2, 0.4, 0.2, 0.1];
    let out = both(
        SOURCE,
        "conv",
        range_1d(n, 13),
        &|| (vec![input.clone(), w.clone(), vec![0.0; n]], vec![n as u64]),
        true,
    );
    let want: Vec<f32> = (0..n as i32)
        .map(|i| {
            let mut sum = 0.0f32;
            for k in -2..=2 {
                sum += w[(k + 2) as usize] * input[(i + k).clamp(0, n as i32 - 1) as usize];
            }
            sum
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn integer_operations_divide_only_in_active_lanes() {
    let n = 41;
    let out = both(
        SOURCE,
        "intops",
        range_1d(n, 41),
        &|| (vec![vec![0i32; n]], vec![]),
        true,
    );
    let want: Vec<i32> = (0..n as i32)
        .map(|i| {
            let d = if i % 4 == 0 { 0 } else { i % 7 };
            let r = if d != 0 {
                (i * 13) / d + (i * 5) % d
            } else {
                -1
            };
            let u = (i as u32).wrapping_mul(2654435761);
            r + (u >> 7) as i32 + ((i << 3) ^ (i >> 1)) + i.max(9) - (i & 5).min(3)
                + (i - 20).clamp(-4, 4)
                + (u / 3) as i32
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn gathers_and_scatters_per_lane() {
    let n = 29;
    let a: Vec<i32> = (0..n as i32).map(|i| i * i).collect();
    let out = both(
        SOURCE,
        "gather",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![0i32; n]], vec![n as u64]),
        true,
    );
    let mut want = vec![0i32; n];
    for i in 0..n {
        want[(i * 3) % n] = a[(i * 7) % n] + i as i32;
    }
    assert_eq!(out, want);
    // Indices in registers, consecutive (one vector access) or not (per lane).
    let n = 30;
    let a: Vec<i32> = (0..n as i32).map(|i| i * 5 - 3).collect();
    let out = both(
        SOURCE,
        "indexed",
        range_1d(n, 15),
        &|| (vec![a.clone(), vec![0i32; 2 * n]], vec![n as u64]),
        true,
    );
    let mut want = vec![0i32; 2 * n];
    for i in 0..n {
        want[i] = a[i ^ 1] + 1;
        want[(i + n).min(2 * n - 1)] = a[i];
    }
    assert_eq!(out, want);
}

#[test]
fn global_offsets_and_two_dimensions() {
    let r = Range {
        global: [18, 1],
        local: [9, 1],
        offset: [5, 0],
    };
    let out = both(
        SOURCE,
        "offsets",
        r,
        &|| (vec![vec![0i32; 18]], vec![]),
        true,
    );
    let want: Vec<i32> = (0..18).map(|i| (i + 5) * 10 + i % 9).collect();
    assert_eq!(out, want);
    let (w, h) = (15, 4);
    let r = Range {
        global: [w, h],
        local: [5, 2],
        offset: [0, 0],
    };
    let out = both(
        SOURCE,
        "grid",
        r,
        &|| (vec![vec![0i32; w * h]], vec![w as u64]),
        true,
    );
    let want: Vec<i32> = (0..h as i32)
        .flat_map(|y| (0..w as i32).map(move |x| x * 100 + y + (y % 2) * 7))
        .collect();
    assert_eq!(out, want);
}

#[test]
fn return_break_and_continue_in_varying_control_flow() {
    let n = 30;
    let out = both(
        SOURCE,
        "early",
        range_1d(n, 15),
        &|| (vec![vec![-3i32; n]], vec![21]),
        true,
    );
    let want: Vec<i32> = (0..n as i32)
        .map(|i| if i >= 21 { -3 } else { i * 2 })
        .collect();
    assert_eq!(out, want);
    let out = both(
        SOURCE,
        "loops",
        range_1d(n, 10),
        &|| (vec![vec![0i32; n]], vec![]),
        true,
    );
    let want: Vec<i32> = (0..n as i32)
        .map(|i| {
            let mut s = 0;
            for k in 0..100 {
                if k > i % 13 {
                    break;
                }
                if k % 3 == 1 {
                    continue;
                }
                s += k;
            }
            let mut j = i;
            loop {
                s += j & 1;
                j >>= 1;
                if j == 0 {
                    break;
                }
            }
            s
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn longs_calls_and_atomics_run_per_lane() {
    let n = 19;
    let out = both(
        SOURCE,
        "wide",
        range_1d(n, n),
        &|| (vec![vec![0i64; n]], vec![]),
        true,
    );
    let want: Vec<i64> = (0..n as i64)
        .map(|i| {
            let v = i * 3_000_000_000;
            (v >> 3) + v / 7
        })
        .collect();
    assert_eq!(out, want);
    let out = both(
        SOURCE,
        "calls",
        range_1d(n, n),
        &|| (vec![vec![0i32; n]], vec![]),
        true,
    );
    let want: Vec<i32> = (0..n as i32).map(|i| 3 * i + 1).collect();
    assert_eq!(out, want);
    let out = both(
        SOURCE,
        "counter",
        range_1d(n, n),
        &|| (vec![vec![0i32; 1]], vec![]),
        true,
    );
    assert_eq!(out, vec![(0..n as i32).filter(|i| i % 2 == 1).sum::<i32>()]);
}

#[test]
fn compound_assignments_to_memory_and_variables() {
    let n = 13;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let out = both(
        SOURCE,
        "compound",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![0.0f32; n]], vec![]),
        true,
    );
    let want: Vec<f32> = (0..n as i32)
        .map(|i| ((i + 5) * 3 - 1) as f32 + (i as f32 * 0.5 * 3.0 + 1.0))
        .collect();
    assert_eq!(out, want);
}

#[test]
fn vector_types_run_as_one_register_per_component() {
    let n = 18;
    let a: Vec<f32> = floats(4 * n, 11);
    let out = both(
        SOURCE,
        "soa",
        range_1d(n, 9),
        &|| (vec![a.clone(), vec![0.0; n]], vec![]),
        true,
    );
    let want: Vec<f32> = (0..n)
        .map(|i| a[4 * i] + a[4 * i + 1] * a[4 * i + 2] - a[4 * i + 3])
        .collect();
    assert_eq!(out, want);
    let pos: Vec<f32> = floats(4 * n, 12).iter().map(|x| x * 3.0).collect();
    let out = both(
        SOURCE,
        "nbody",
        range_1d(n, 6),
        &|| {
            (
                vec![pos.clone(), vec![0.0; 4 * n]],
                vec![n as u64, 0.01f32.to_bits() as u64],
            )
        },
        true,
    );
    let mut want = Vec::new();
    for i in 0..n {
        let p = &pos[4 * i..4 * i + 4];
        let mut acc = [0.0f32; 3];
        for j in 0..n {
            let q = &pos[4 * j..4 * j + 4];
            let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
            let dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 0.01;
            let inv = (1.0 / (dd as f64).sqrt()) as f32;
            let s = q[3] * inv * inv * inv;
            for c in 0..3 {
                acc[c] += d[c] * s;
            }
        }
        want.extend([acc[0], acc[1], acc[2], 0.0]);
    }
    assert_eq!(out, want);
    let a: Vec<f32> = floats(2 * n, 13);
    let out = both(
        SOURCE,
        "vec2ops",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![0.0; 2 * n]], vec![]),
        true,
    );
    let mut want = Vec::new();
    for i in 0..n {
        let v = [a[2 * i], a[2 * i + 1]];
        let mut w = [v[1] * 2.0, -v[0] * 2.0];
        if v[0] > 0.0 {
            for c in 0..2 {
                w[c] = w[c].clamp(-0.5, 0.5) + v[c].abs().sqrt();
            }
        }
        let yx = [v[1], v[0]];
        for c in 0..2 {
            let m = if w[c] > yx[c] { yx[c] } else { w[c] };
            want.push(m + i as f32);
        }
    }
    assert_eq!(out, want);
}

#[test]
fn variables_uniform_inside_a_divergent_region() {
    let n = 23;
    let spheres = floats(16, 21);
    let count = 8;
    let out = both(
        SOURCE,
        "shadows",
        range_1d(n, n),
        &|| (vec![spheres.clone(), vec![0.0f32; n]], vec![count as u64]),
        true,
    );
    let want: Vec<f32> = (0..n as i32)
        .map(|i| {
            let hit = i % 3 - 1;
            let mut acc = 0.0f32;
            if hit >= 0 {
                let mut seen = 0;
                for s in 0..count {
                    let r = spheres[2 * s] + spheres[2 * s + 1];
                    if s as i32 != hit && r > 0.5 {
                        acc += r * i as f32;
                    }
                    seen += 2;
                }
                acc += seen as f32;
            }
            acc
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn a_varying_record_runs_scalar_with_the_reason() {
    let k = kernel(SOURCE, "record", false);
    let why = k.vectorized.clone().expect_err("not vectorized");
    assert_eq!(
        why,
        "'p' is a varying struct pair (only scalars and vectors other than half are vectorized \
         yet)"
    );
    let k = kernel(SOURCE, "vadd", true);
    assert_eq!(
        k.vectorized,
        Err("turned off (CLIFT_VECTORIZE=0)".to_string())
    );
}

/// The CLIF text of the vectorized row function of kernel `name` of `source`.
/// The body's copies in the vectorized row function of a straight-line kernel: one, a step
/// of one group of 4 items (a row without loops: `simd/unroll.rs`).
const STRAIGHT_COPIES: usize = 1;

fn vectorized_clif(source: &str, name: &str) -> String {
    let collected = clift_compiler::codegen::dump::collect_during(|| {
        kernel(source, name, false);
    });
    let row = format!("vectorized row function of {name}");
    collected
        .clif
        .into_iter()
        .find(|(n, _)| *n == row)
        .expect("the vectorized row function's CLIF")
        .1
}

#[test]
fn vector_add_becomes_vector_loads_an_add_and_a_store() {
    let clif = vectorized_clif(
        "kernel void vadd2(global const float *a, global const float *b, global float *c) {
            size_t i = get_global_id(0);
            c[i] = a[i] + b[i];
        }",
        "vadd2",
    );
    let n = STRAIGHT_COPIES;
    assert_eq!(clif.matches("load.f32x4").count(), 2 * n, "{clif}");
    assert_eq!(clif.matches(" fadd ").count(), n, "{clif}");
    assert_eq!(clif.matches(" store ").count(), n, "{clif}");
    // Nothing per lane: no lane is extracted or inserted.
    assert!(
        !clif.contains("extractlane") && !clif.contains("insertlane"),
        "{clif}"
    );
}

/// Component `c` of vector `i` (of `n` components) of `v`.
fn at(v: &[f32], n: usize, i: usize, c: usize) -> f32 {
    v[n * i + c]
}

#[test]
fn vectors_of_8_and_16_components_run_one_register_per_component() {
    let n = 19;
    let a = floats(16 * n, 31);
    let out = both(
        SOURCE,
        "wide16",
        range_1d(n, n),
        &|| {
            (
                vec![a.clone(), vec![0.0; 16 * n]],
                vec![1.5f32.to_bits() as u64],
            )
        },
        true,
    );
    let mut want = Vec::new();
    for i in 0..n {
        let v = |c: usize| at(&a, 16, i, c);
        for c in 0..16 {
            let mut w = v(c) * 1.5 + v(15 - c);
            if v(3) > 0.0 {
                w = (w * v(c) + 1.0) + v((c + 8) % 16);
            }
            want.push(w);
        }
    }
    assert_eq!(out, want);
    let ai: Vec<i32> = (0..8 * n as i32).map(|x| x * 7919 % 1000 - 500).collect();
    let out = both(
        SOURCE,
        "wide8i",
        range_1d(n, n),
        &|| (vec![ai.clone(), vec![0; 8 * n]], vec![]),
        true,
    );
    let mut want = Vec::new();
    for i in 0..n {
        let v = |c: usize| ai[8 * i + c];
        for c in 0..8 {
            let w = (v(c) << 2) ^ i as i32;
            want.push(w.max(v(7 - c)) + c as i32 + 1 + v(2 * (c / 2)));
        }
    }
    assert_eq!(out, want);
}

#[test]
fn vload_and_vstore_of_consecutive_items_are_whole_loads() {
    let n = 22;
    let a = floats(16 * n + 8, 41);
    let out = both(
        SOURCE,
        "vloads",
        range_1d(n, 11),
        &|| (vec![a.clone(), vec![0.0; 16 * n]], vec![]),
        true,
    );
    let mut want = Vec::new();
    for i in 0..n {
        let h = |c: usize| a[8 * i + 3 + c];
        let extra: Vec<f32> = (0..8)
            .map(h)
            .chain([1, 3, 5, 7].map(h))
            .chain([0, 2, 4, 6].map(h))
            .collect();
        for c in 0..16 {
            want.push(a[16 * i + c] * 2.0 + extra[c]);
        }
    }
    assert_eq!(out, want);
    let au: Vec<i32> = (0..256).map(|x| x * 31 + 7).collect();
    let out = both(
        SOURCE,
        "vmasked",
        range_1d(30, 15),
        &|| (vec![au.clone(), vec![-1; 320]], vec![1000]),
        true,
    );
    let mut want = vec![-1; 320];
    for i in 0..30 {
        if i % 3 != 0 {
            for c in 0..4 {
                want[4 * i + c] = au[4 * i + c] + 1000;
            }
        }
        want[256 + 2 * i] = au[4 * i + 1];
        want[256 + 2 * i + 1] = au[4 * i];
    }
    assert_eq!(out, want);
}

/// What `bw16` writes for `n` items in groups of `local`, reading `a`.
fn bw16_want(a: &[f32], n: usize, local: usize) -> Vec<f32> {
    let mut want = Vec::new();
    for g in 0..n {
        let (group, l) = (g / local, g % local);
        let mut sum = [0.0f32; 16];
        let mut id = group * local * 4 + l;
        for _ in 0..4 {
            for (c, s) in sum.iter_mut().enumerate() {
                *s += a[16 * id + c];
            }
            id += local;
        }
        let t: Vec<f32> = (0..4)
            .map(|c| sum[c] + sum[4 + c] + sum[8 + c] + sum[12 + c])
            .collect();
        want.push(t[0] + t[1] + t[2] + t[3]);
    }
    want
}

#[test]
fn consecutive_float16_elements_by_index_and_fused_mad() {
    // `vec_type_hint(float)` asks for the vectorized row (the estimate would keep this
    // kernel's float16 fetches in the scalar row: below).
    let (n, local) = (24, 8);
    let a = floats(16 * 4 * n, 51);
    let out = both(
        SOURCE,
        "bw16",
        range_1d(n, local),
        &|| (vec![a.clone(), vec![0.0; n]], vec![]),
        true,
    );
    assert_eq!(out, bw16_want(&a, n, local));
    let out = both_with(
        SOURCE,
        "sp16",
        range_1d(12, 6),
        &|| (vec![vec![0.0f32; 12]], vec![0.25f32.to_bits() as u64]),
        true,
        true,
    );
    let want: Vec<f32> = (0..12)
        .map(|g| {
            let mut x: Vec<f32> = (0..16).map(|c| 0.25 + c as f32).collect();
            let mut y = [(g % 6) as f32; 16];
            for _ in 0..3 {
                for c in 0..16 {
                    x[c] = y[c].mul_add(x[c], y[c]);
                    y[c] = x[c].mul_add(y[c], x[c]);
                }
            }
            let t: Vec<f32> = (0..2)
                .map(|c| {
                    y[c] + y[2 + c]
                        + y[4 + c]
                        + y[6 + c]
                        + y[8 + c]
                        + y[10 + c]
                        + y[12 + c]
                        + y[14 + c]
                })
                .collect();
            t[0] + t[1]
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn float16_fetches_without_a_hint_run_item_by_item_in_registers() {
    // clpeak's float16 bandwidth kernel as written (no vec_type_hint): moving its float16s
    // across items costs more than it saves, so the scalar row runs it, with the same
    // results.
    let source = SOURCE.replace(
        "__attribute__((vec_type_hint(float)))\nkernel void bw16",
        "kernel void bw16",
    );
    let (n, local) = (24, 8);
    let a = floats(16 * 4 * n, 52);
    let out = both(
        &source,
        "bw16",
        range_1d(n, local),
        &|| (vec![a.clone(), vec![0.0; n]], vec![]),
        false,
    );
    assert_eq!(out, bw16_want(&a, n, local));
}

/// clpeak's `float` and `float2` bandwidth kernels (`id` stepped by a `size_t` 16 times per
/// item, from the group's block (`_lo`) or the global id (`_go`)), and kernels of induction
/// variables at the edges of the rule (`codegen/simd/induction.rs`).
const INDUCTION: &str = r#"
/* clpeak 1.1's kernels: 4 iterations of 4 fetches, `id` stepped after each. */
#define FETCH(step) sum += A[id]; id += step;
#define BANDWIDTH(name, T, start, jump, total)                                            \
kernel void name(global T *A, global float *B) {                                          \
    int id = start;                                                                       \
    T sum = 0;                                                                            \
    for (int i = 0; i < 4; i++) { FETCH(jump) FETCH(jump) FETCH(jump) FETCH(jump) }       \
    B[get_global_id(0)] = total;                                                          \
}
BANDWIDTH(bw1_lo, float, (get_group_id(0) * get_local_size(0) * 16) + get_local_id(0),
    get_local_size(0), sum)
BANDWIDTH(bw1_go, float, get_global_id(0), get_global_size(0), sum)
BANDWIDTH(bw2_lo, float2, (get_group_id(0) * get_local_size(0) * 16) + get_local_id(0),
    get_local_size(0), sum.s0 + sum.s1)

/* The lanes' first `p[id]` is consecutive for items 0..3 and not for 4..7 (item 7's last
   `id` is INT_MAX): the second step's loads take the per-lane path. */
kernel void near_max(global const float *a, global float *out) {
    global const float *p = a - 2147483637;
    int id = get_global_id(0) + 2147483637;
    float sum = 0.0f;
    for (int i = 0; i < 4; i++) {
        sum += p[id];
        id++;
    }
    out[get_global_id(0)] = sum;
}

/* Values of sequences: a uint wrapping around through 0 and an int, stepped by size_t,
   by ++, -- and by `x = x - n`. */
kernel void wraps(global uint *out, uint start, int n) {
    uint u = get_global_id(0) + start;
    int s = get_global_id(0) - 2147483000;
    for (int i = 0; i < 3; i++) {
        u += get_local_size(0);
        ++u;
        s -= get_global_size(0);
        s--;
        s = s - n;
    }
    out[2 * get_global_id(0)] = u;
    out[2 * get_global_id(0) + 1] = s;
}

/* Steps that part the lanes (under a varying `if`) or are not a uniform amount: `id`
   stays a register. */
kernel void parted(global const float *a, global float *out) {
    int id = get_global_id(0);
    int j = get_global_id(0);
    float sum = 0.0f;
    for (int i = 0; i < 4; i++) {
        sum += a[id] + a[j];
        if (get_global_id(0) & 1)
            id += 2;
        else
            id += 1;
        j += j & 1;
    }
    out[get_global_id(0)] = sum;
}
"#;

/// What clpeak's bandwidth kernel of `width` floats writes for `n` items in groups of
/// `local`: `lo` starts each item in its group's block of 16 fetches, else at its id.
fn bandwidth_want(a: &[f32], width: usize, n: usize, local: usize, lo: bool) -> Vec<f32> {
    (0..n)
        .map(|g| {
            let (jump, mut id) = if lo {
                (local, g / local * local * 16 + g % local)
            } else {
                (n, g)
            };
            let mut sum = vec![0.0f32; width];
            for _ in 0..16 {
                for (c, s) in sum.iter_mut().enumerate() {
                    *s += a[width * id + c];
                }
                id += jump;
            }
            sum.iter().skip(1).fold(sum[0], |t, s| t + s)
        })
        .collect()
}

#[test]
fn induction_variables_stay_sequences_in_clpeaks_bandwidth_kernels() {
    let (n, local) = (48, 16);
    for (name, width, lo) in [
        ("bw1_lo", 1, true),
        ("bw1_go", 1, false),
        ("bw2_lo", 2, true),
    ] {
        let a = floats(width * 16 * n, 61);
        let out = both(
            INDUCTION,
            name,
            range_1d(n, local),
            &|| (vec![a.clone(), vec![0.0; n]], vec![]),
            true,
        );
        assert_eq!(out, bandwidth_want(&a, width, n, local, lo), "{name}");
    }
    // Each fetch is one vector load after one compare of `id` (an `int` narrowed from a
    // `size_t`: its lanes could wrap); no lane test, no 64-bit stepping of a register.
    let clif = vectorized_clif(INDUCTION, "bw1_lo");
    for absent in ["vall_true", "swiden_low", "extractlane"] {
        assert!(!clif.contains(absent), "{absent}:\n{clif}");
    }
    let loads = clif.matches("load.f32x4").count();
    let tests = clif.matches("iconst.i32 0x7fff_fffb").count();
    assert!(
        loads >= 4 && loads == tests,
        "{loads} loads, {tests} tests:\n{clif}"
    );
}

#[test]
fn induction_variables_near_int_max_and_wrapping() {
    let a = floats(16, 62);
    let out = both(
        INDUCTION,
        "near_max",
        range_1d(8, 8),
        &|| (vec![a.clone(), vec![0.0; 8]], vec![]),
        true,
    );
    let want: Vec<f32> = (0..8)
        .map(|g| (0..4).fold(0.0f32, |s, i| s + a[g + i]))
        .collect();
    assert_eq!(out, want);
    let (n, local) = (40, 8);
    let start = 0xffff_ffe0u32;
    let out = both(
        INDUCTION,
        "wraps",
        range_1d(n, local),
        &|| (vec![vec![0i32; 2 * n]], vec![u64::from(start), 5]),
        true,
    );
    let mut want = Vec::new();
    for g in 0..n as u32 {
        let u = g.wrapping_add(start).wrapping_add(3 * (local as u32 + 1));
        let s = (g as i32 - 2147483000) - 3 * (n as i32 + 1 + 5);
        want.extend([u as i32, s]);
    }
    assert_eq!(out, want);
    assert_eq!(out[0], 0xffff_fffbu32 as i32);
    assert_eq!(out[2 * 5], 0);
}

#[test]
fn steps_that_part_the_lanes_keep_a_register() {
    let a = floats(64, 63);
    let n = 12;
    let out = both(
        INDUCTION,
        "parted",
        range_1d(n, 12),
        &|| (vec![a.clone(), vec![0.0; n]], vec![]),
        true,
    );
    let want: Vec<f32> = (0..n)
        .map(|g| {
            let (mut id, mut j, mut sum) = (g, g, 0.0f32);
            for _ in 0..4 {
                sum += a[id] + a[j];
                id += 1 + (g & 1);
                j += j & 1;
            }
            sum
        })
        .collect();
    assert_eq!(out, want);
    // Both indices are registers tested for consecutive lanes at run time.
    let clif = vectorized_clif(INDUCTION, "parted");
    assert!(clif.contains("vall_true"), "{clif}");
}

#[test]
fn vload16_and_vstore16_become_transposed_vector_loads_and_stores() {
    let clif = vectorized_clif(SOURCE, "vloads");
    // 16 + 8 components of 4 items: a 16-byte load per 4 components of an item.
    let n = STRAIGHT_COPIES;
    assert_eq!(clif.matches("load.f32x4").count(), 24 * n, "{clif}");
    assert_eq!(clif.matches(" store ").count(), 16 * n, "{clif}");
    assert!(
        !clif.contains("extractlane") && !clif.contains("insertlane"),
        "{clif}"
    );
}

fn doubles(n: usize, seed: u32) -> Vec<f64> {
    floats(n, seed)
        .iter()
        .map(|&x| f64::from(x) * 1.25)
        .collect()
}

#[test]
fn doubles_run_two_items_per_register() {
    let n = 26;
    let a = doubles(n, 61);
    let out = both(
        SOURCE,
        "dbl",
        range_1d(n, 13),
        &|| (vec![a.clone(), vec![0.0; n]], vec![0.75f64.to_bits()]),
        true,
    );
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let x = a[i];
            let g = i as f32 * 0.25;
            let mut y = x * 0.75 + f64::from(g) - i as f64;
            if x > 0.25 {
                y = (y * y).sqrt() / x;
            } else {
                y = y * x + 1.5;
            }
            y + x.abs() + f64::from((x * 3.0) as f32) + f64::from(u8::from(x != y))
        })
        .collect();
    assert_eq!(out, want);
    let a = doubles(4 * n, 62);
    let out = both(
        SOURCE,
        "dvec",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![0.0; 4 * n]], vec![]),
        true,
    );
    let mut want = Vec::new();
    for i in 0..n {
        for c in 0..4 {
            let v = a[4 * i + c];
            let mut w = v * v - (c + 1) as f64;
            if i % 3 == 1 {
                w = w.abs().sqrt();
            }
            want.push(w + v);
        }
    }
    assert_eq!(out, want);
    let out = both_with(
        SOURCE,
        "dp16",
        range_1d(12, 6),
        &|| (vec![vec![0.0f64; 12]], vec![0.25f64.to_bits()]),
        true,
        true,
    );
    let want: Vec<f64> = (0..12)
        .map(|g| {
            let mut x: Vec<f64> = (0..16).map(|c| 0.25 + c as f64).collect();
            let mut y = [(g % 6) as f64; 16];
            for _ in 0..3 {
                for c in 0..16 {
                    x[c] = y[c].mul_add(x[c], y[c]);
                    y[c] = x[c].mul_add(y[c], x[c]);
                }
            }
            let t: Vec<f64> = (0..2)
                .map(|c| {
                    y[c] + y[2 + c]
                        + y[4 + c]
                        + y[6 + c]
                        + y[8 + c]
                        + y[10 + c]
                        + y[12 + c]
                        + y[14 + c]
                })
                .collect();
            t[0] + t[1]
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn longs_run_two_items_per_register() {
    let n = 22;
    let a: Vec<i64> = (0..n as i64)
        .map(|i| i * 0x1234_5678_9abc - 77_777 * (i % 5))
        .collect();
    let out = both(
        SOURCE,
        "longs",
        range_1d(n, 11),
        &|| (vec![a.clone(), vec![0; n]], vec![5_000_000_000u64]),
        true,
    );
    let want: Vec<i64> = (0..n)
        .map(|i| {
            let v = a[i] + 5_000_000_000;
            let mut w = (v ^ i as i64) - (v & 0xff);
            if v == w {
                w = 7;
            }
            (w as u64).wrapping_add((v << 3) as u64) as i64
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn double16_becomes_pairs_of_registers() {
    let clif = vectorized_clif(SOURCE, "dvec");
    // 4 components of 4 items: 8 loads and 8 stores of 16 bytes, square roots in pairs.
    let n = STRAIGHT_COPIES;
    assert_eq!(clif.matches("load.f64x2").count(), 8 * n, "{clif}");
    assert_eq!(clif.matches(" store ").count(), 8 * n, "{clif}");
    assert_eq!(clif.matches(" sqrt ").count(), 8 * n, "{clif}");
}

#[test]
fn integers_widen_and_narrow_between_32_and_64_bits_in_registers() {
    let n = 21;
    let a: Vec<i64> = (0..n as i64)
        .map(|i| i * 0x2345_6789 - 0x7000_0000)
        .collect();
    // The kernel reads ints: two per long of the buffer.
    let ints: Vec<i32> = a.iter().map(|&x| x as i32).collect();
    let packed: Vec<i64> = ints
        .chunks(2)
        .map(|c| {
            let hi = c.get(1).copied().unwrap_or(0);
            (i64::from(hi) << 32) | i64::from(c[0] as u32)
        })
        .collect();
    let out = both(
        SOURCE,
        "widen",
        range_1d(n, 7),
        &|| (vec![packed.clone(), vec![0; n]], vec![]),
        true,
    );
    let want: Vec<i64> = ints
        .iter()
        .map(|&x| {
            let u = (x as u32).wrapping_mul(3);
            let w = i64::from(x) + i64::from(u);
            let back = ((w >> 1) as i32).wrapping_add(w as i32);
            w + i64::from(u) + i64::from(back)
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn vload_and_vstore_of_double_vectors_move_pairs() {
    let n = 18;
    let a = doubles(4 * n + 2, 71);
    let out = both(
        SOURCE,
        "dvload",
        range_1d(n, 9),
        &|| (vec![a.clone(), vec![-1.0; 4 * n]], vec![]),
        true,
    );
    let mut want = vec![-1.0; 4 * n];
    for i in 0..n {
        if i % 4 == 2 {
            continue;
        }
        let w = [a[2 * i + 1], a[2 * i + 2]];
        let extra = [w[0], w[1], w[1], w[0]];
        for c in 0..4 {
            want[4 * i + c] = a[4 * i + c] * 2.0 + extra[c];
        }
    }
    assert_eq!(out, want);
}

#[test]
fn swizzles_splats_and_negation_of_doubles_stay_in_pairs() {
    let n = 15;
    let a = doubles(4 * n, 81);
    let out = both(
        SOURCE,
        "dswz",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![0.0; n]], vec![1.75f64.to_bits()]),
        true,
    );
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let v = &a[4 * i..4 * i + 4];
            let lit = [v[0], v[1], -v[2], v[3]];
            let w: Vec<f64> = (0..4).map(|c| v[3 - c] * 1.75 + lit[c]).collect();
            let h = [w[2] - w[0], w[3] - w[1]];
            h[0] * h[1] - w[1]
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn double_vector_swizzles_and_literals_need_no_lane_moves() {
    let clif = vectorized_clif(SOURCE, "dswz");
    assert!(
        !clif.contains("extractlane") && !clif.contains("insertlane"),
        "{clif}"
    );
}

/// Floats of every kind for the math tests: zeros, infinities, NaN, denormals, huge and
/// tiny values, and ordinary ones.
fn special_floats(n: usize, seed: u32) -> Vec<f32> {
    const SPECIAL: [f32; 14] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0e-40,
        -1.0e-45,
        1.0e30,
        -3.0e38,
        1.0,
        -2.5,
        88.5,
        -104.0,
        1.0e-20,
    ];
    floats(n, seed)
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            if i % 3 == 0 {
                SPECIAL[(i / 3 + seed as usize) % SPECIAL.len()]
            } else {
                x * (1 + i % 11) as f32
            }
        })
        .collect()
}

/// `normalize` as clift defines it for `float` (`codegen/geometric.rs`): in double, a
/// vector with infinities becomes that of their signs, a zero vector is kept.
fn normalize_ref(v: &[f32]) -> Vec<f32> {
    let wide: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
    let total = wide
        .iter()
        .map(|x| x * x)
        .fold(None, |acc: Option<f64>, p| Some(acc.map_or(p, |a| a + p)));
    let total = total.expect("a component");
    if total == 0.0 {
        return v.to_vec();
    }
    let signs: Vec<f64> = wide
        .iter()
        .map(|x| {
            if x.is_infinite() {
                1f64.copysign(*x)
            } else {
                0f64.copysign(*x)
            }
        })
        .collect();
    let (xs, total) = if total == f64::INFINITY {
        let count = signs
            .iter()
            .map(|x| x * x)
            .fold(None, |acc: Option<f64>, p| Some(acc.map_or(p, |a| a + p)));
        (signs, count.expect("a component"))
    } else {
        (wide, total)
    };
    let len = total.sqrt();
    xs.iter().map(|x| (x / len) as f32).collect()
}

/// `length` as clift defines it for `float`: the sum of squares in double, rounded once.
fn length_ref(v: &[f32]) -> f32 {
    let mut acc = f64::from(v[0]) * f64::from(v[0]);
    for &x in &v[1..] {
        acc += f64::from(x) * f64::from(x);
    }
    acc.sqrt() as f32
}

const GEOMETRIC: &str = r#"
kernel void geo(global const float4 *a, global const float4 *b, global float *out) {
    int i = get_global_id(0);
    float4 x = a[i], y = b[i];
    float4 n4 = normalize(x);
    float3 n3 = normalize(x.xyz);
    float2 n2 = normalize(x.zw);
    global float *o = out + 16 * i;
    o[0] = n4.x; o[1] = n4.y; o[2] = n4.z; o[3] = n4.w;
    o[4] = n3.x; o[5] = n3.y; o[6] = n3.z;
    o[7] = n2.x; o[8] = n2.y;
    o[9] = normalize(x.w);
    o[10] = length(x);
    o[11] = length(x.xyz);
    o[12] = length(x.y);
    o[13] = distance(x, y);
    o[14] = distance(x.xy, y.xy);
    o[15] = distance(x.z, 2.0f);
}
"#;

#[test]
fn geometric_functions_run_in_registers_as_the_scalar_path() {
    let n = 43;
    let mut a = special_floats(4 * n, 21);
    let b = special_floats(4 * n, 22);
    // Vectors whose results are known exactly: (3, 4, 0, 0) → (0.6, 0.8, 0, 0) and length 5;
    // a zero vector stays; (inf, 1, -inf, 2) → (1/√2, 0, -1/√2, 0); 2^64 does not overflow.
    a[..16].copy_from_slice(&[
        3.0,
        4.0,
        0.0,
        0.0,
        0.0,
        -0.0,
        0.0,
        0.0,
        f32::INFINITY,
        1.0,
        f32::NEG_INFINITY,
        2.0,
        18446744073709551616.0,
        0.0,
        0.0,
        0.0,
    ]);
    let out = both(
        GEOMETRIC,
        "geo",
        range_1d(n, n),
        &|| (vec![a.clone(), b.clone(), vec![0.0; 16 * n]], vec![]),
        true,
    );
    assert_eq!(&out[..4], &[0.6, 0.8, 0.0, 0.0]);
    assert_eq!(out[10], 5.0);
    assert_eq!(
        out[16..20].iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [0, (-0.0f32).to_bits(), 0, 0]
    );
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert_eq!(&out[32..36], &[h, 0.0, -h, 0.0]);
    assert_eq!(out[48 + 10], 18446744073709551616.0);
    for i in 0..n {
        let x = &a[4 * i..4 * i + 4];
        let y = &b[4 * i..4 * i + 4];
        let diff = |k: usize| (f64::from(x[k]) - f64::from(y[k])).powi(2);
        let mut want = normalize_ref(x);
        want.extend(normalize_ref(&x[..3]));
        want.extend(normalize_ref(&x[2..]));
        want.extend(normalize_ref(&x[3..]));
        want.push(length_ref(x));
        want.push(length_ref(&x[..3]));
        want.push(length_ref(&x[1..2]));
        want.push((diff(0) + diff(1) + diff(2) + diff(3)).sqrt() as f32);
        want.push((diff(0) + diff(1)).sqrt() as f32);
        want.push((f64::from(x[2]) - 2.0).powi(2).sqrt() as f32);
        let got = &out[16 * i..16 * i + 16];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(got), bits(&want), "item {i}: {x:?} {y:?}");
    }
    // In registers: the lanes widened to double pairs, no call and nothing per lane but
    // the stores at a stride of 16.
    let clif = vectorized_clif(GEOMETRIC, "geo");
    assert!(clif.contains("fvpromote_low"), "{clif}");
    assert!(!clif.contains(" call "), "{clif}");
}

const MATH: &str = r#"
kernel void math(global const float *a, global const float *b, global float *out) {
    int i = get_global_id(0);
    float x = a[i], y = b[i];
    global float *o = out + 24 * i;
    o[0] = exp(x); o[1] = exp2(x); o[2] = exp10(x);
    o[3] = log(x); o[4] = log2(x); o[5] = log10(x);
    o[6] = sin(x); o[7] = cos(x); o[8] = pow(x, y);
    o[9] = native_exp(x); o[10] = half_log(y); o[11] = native_sin(y);
    o[12] = half_cos(x); o[13] = native_log10(x); o[14] = half_exp2(y);
    o[15] = pow(y, x);
    float4 v = (float4)(x, y, -x, x * y);
    float4 e = exp(v), s = sin(v), p = pow(v, v.wzyx);
    o[16] = e.x; o[17] = e.y; o[18] = e.z; o[19] = e.w;
    o[20] = s.w; o[21] = p.x; o[22] = p.y; o[23] = p.w;
}
"#;

#[test]
fn math_functions_call_their_four_lane_forms_with_the_scalar_results() {
    use clift_builtins::math as m;
    let n = 61;
    let a = special_floats(n, 31);
    let b: Vec<f32> = special_floats(n, 32).iter().map(|x| x * 3.0).collect();
    let out = both(
        MATH,
        "math",
        range_1d(n, n),
        &|| (vec![a.clone(), b.clone(), vec![0.0; 24 * n]], vec![]),
        true,
    );
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let v = [x, y, -x, x * y];
        let want = [
            m::clift_exp_f32(x),
            m::clift_exp2_f32(x),
            m::clift_exp10_f32(x),
            m::clift_log_f32(x),
            m::clift_log2_f32(x),
            m::clift_log10_f32(x),
            m::clift_sin_f32(x),
            m::clift_cos_f32(x),
            m::clift_pow_f32(x, y),
            m::clift_exp_f32(x),
            m::clift_log_f32(y),
            m::clift_sin_f32(y),
            m::clift_cos_f32(x),
            m::clift_log10_f32(x),
            m::clift_exp2_f32(y),
            m::clift_pow_f32(y, x),
            m::clift_exp_f32(v[0]),
            m::clift_exp_f32(v[1]),
            m::clift_exp_f32(v[2]),
            m::clift_exp_f32(v[3]),
            m::clift_sin_f32(v[3]),
            m::clift_pow_f32(v[0], v[3]),
            m::clift_pow_f32(v[1], v[2]),
            m::clift_pow_f32(v[3], v[0]),
        ];
        let got = &out[24 * i..24 * i + 24];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(got), bits(&want), "item {i}: x = {x:e}, y = {y:e}");
    }
    // One call per builtin and component (16 scalar calls, 4 each for exp, sin and pow of
    // the float4), not one per lane.
    let clif = vectorized_clif(MATH, "math");
    assert_eq!(clif.matches(" call ").count(), 28, "{clif}");
}

const DOUBLE_MATH: &str = r#"
kernel void dmath(global const double *a, global double *out) {
    int i = get_global_id(0);
    double x = a[i];
    global double *o = out + 13 * i;
    o[0] = exp(x); o[1] = log(x); o[2] = sin(x); o[3] = cos(x * x);
    double2 v = (double2)(x, 0.5 * x);
    double2 e = exp(v), l = log(v), s = sin(v);
    o[4] = e.x; o[5] = e.y; o[6] = l.x; o[7] = l.y; o[8] = s.x; o[9] = s.y;
    o[10] = log2(x); o[11] = log10(x); o[12] = exp10(x);
}
"#;

/// `double` `exp`, `exp10`, `log`, `log2`, `log10`, `sin` and `cos` call their two-lane forms
/// (`builtins/src/math/lanes2.rs`), one call per register of two items, with the scalar
/// functions' results bit for bit.
#[test]
fn double_math_functions_call_their_two_lane_forms_with_the_scalar_results() {
    use clift_builtins::math as m;
    let n = 61;
    let a: Vec<f64> = special_floats(n, 33)
        .iter()
        .enumerate()
        .map(|(i, &x)| match i % 5 {
            // Arguments of libm's every range: tiny, near 1, large, subnormal.
            0 => f64::from(x) * 1e-10,
            1 => 1.0 + f64::from(x) * 1e-3,
            2 => f64::from(x) * 7.0,
            3 => f64::from(x) * 1e-300,
            _ => f64::from(x),
        })
        .collect();
    let out = both(
        DOUBLE_MATH,
        "dmath",
        range_1d(n, n),
        &|| (vec![a.clone(), vec![0.0; 13 * n]], vec![]),
        true,
    );
    for (i, &x) in a.iter().enumerate() {
        let want = [
            m::clift_exp_f64(x),
            m::clift_log_f64(x),
            m::clift_sin_f64(x),
            m::clift_cos_f64(x * x),
            m::clift_exp_f64(x),
            m::clift_exp_f64(0.5 * x),
            m::clift_log_f64(x),
            m::clift_log_f64(0.5 * x),
            m::clift_sin_f64(x),
            m::clift_sin_f64(0.5 * x),
            m::clift_log2_f64(x),
            m::clift_log10_f64(x),
            m::clift_exp10_f64(x),
        ];
        let got = &out[13 * i..13 * i + 13];
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(got), bits(&want), "item {i}: x = {x:e}");
    }
    // Two calls (one per register of two items) per builtin and component: 2 · 7 + 2 · 6,
    // all of them on registers (no `(f64) -> f64` signature: nothing per lane).
    let clif = vectorized_clif(DOUBLE_MATH, "dmath");
    assert_eq!(clif.matches(" call ").count(), 26, "{clif}");
    assert!(!clif.contains("(f64) -> f64"), "{clif}");
}

const INVARIANT: &str = r#"
kernel void invariant(global float *out, int n, float w) {
    int x = get_global_id(0);
    float3 d = normalize((float3)(x * w, 1.0f, 2.0f));
    float acc = 0.0f;
    for (int s = 0; s < n; s++) acc += dot(d, (float3)(s, 1.0f, 0.5f));
    out[x] = acc + d.x;
}
"#;

#[test]
fn values_a_loop_reads_are_computed_once_before_it() {
    let n = 13;
    let out = both(
        INVARIANT,
        "invariant",
        range_1d(n, n),
        &|| (vec![vec![0.0f32; n]], vec![5, 0.25f32.to_bits() as u64]),
        true,
    );
    for (x, got) in out.iter().enumerate() {
        let d = normalize_ref(&[x as f32 * 0.25, 1.0, 2.0]);
        let mut acc = 0.0f32;
        for s in 0..5 {
            acc += d[0] * s as f32 + d[1] * 1.0 + d[2] * 0.5;
        }
        assert_eq!(got.to_bits(), (acc + d[0]).to_bits(), "item {x}");
    }
    // The machine code computes the normalize once per group of 4 items: two `sqrtpd` (one
    // per pair of lanes), not two more inside the loop (Cranelift places the computation at
    // its first use, and does not hoist what depends on a constant). The loop keeps 4
    // registers per group (`d` and `acc`): 2 groups per step, then the remainder's group.
    let collected = clift_compiler::codegen::dump::collect_during(|| {
        kernel(INVARIANT, "invariant", false);
    });
    let (_, asm) = collected
        .asm
        .iter()
        .find(|(name, _)| name == "the vectorized row function of 'invariant'")
        .expect("the vectorized row function's machine code");
    assert_eq!(asm.matches("sqrtpd").count(), 2 * 3, "{asm}");
}

/// clift-bench's ray tracer (the same file: normalize of float3, dot, sqrt, a loop over
/// spheres with a divergent nearest-hit update, a shadow loop, `convert_uchar4_sat`): the
/// vectorized row gives the scalar row's image byte for byte, and the image shows the
/// spheres (many colours, not the background alone).
#[test]
fn the_bench_ray_tracer_gives_the_scalar_image() {
    const RAYS: &str = include_str!("bench_raytrace.cl");
    let (w, h) = (64usize, 48usize);
    let mut spheres = Vec::new();
    for s in 0..24 {
        let a = s as f32 * 0.7;
        spheres.extend_from_slice(&[a.cos() * 2.5, a.sin() * 1.5, 2.0 + (s % 5) as f32, 0.6]);
        spheres.extend_from_slice(&[
            0.3 + (s % 3) as f32 * 0.3,
            0.5,
            0.9 - (s % 4) as f32 * 0.2,
            0.0,
        ]);
    }
    let sphere_bits: Vec<i32> = spheres.iter().map(|f| f.to_bits() as i32).collect();
    let range = Range {
        global: [w, h],
        local: [16, 4],
        offset: [0, 0],
    };
    let image = both(
        RAYS,
        "raytrace",
        range,
        &|| {
            (
                vec![sphere_bits.clone(), vec![0i32; w * h]],
                vec![24, w as u64, h as u64],
            )
        },
        true,
    );
    let background = i32::from_ne_bytes([25, 25, 38, 255]);
    let colours: std::collections::BTreeSet<i32> = image.iter().copied().collect();
    assert!(colours.contains(&background), "the background is seen");
    assert!(colours.len() > 50, "{} colours", colours.len());
    assert!(
        image.iter().all(|p| p.to_ne_bytes()[3] == 255),
        "alpha 255 everywhere"
    );
}

/// Switches run in the vectorized row as `if` chains under lane masks
/// (`passes::switches::rewrite_every_switch`; the scalar row keeps the jump): a varying
/// switch with fall-throughs into and out of `default` takes every path in one step of 4
/// items. The Khronos CTS's math kernels of 3-component vectors end with two switches on
/// the last item's parity, one of them falling through: with the switches gone, what keeps
/// them scalar is their stride-3 `vload3`/`vstore3`, lane by lane.
const SWITCHES: &str = r#"
kernel void square3(global const float *in, global float *out) {
    size_t i = get_global_id(0);
    if (i + 1 < get_global_size(0)) {
        float3 f0 = vload3(0, in + 3 * i);
        f0 = f0 * f0;
        vstore3(f0, 0, out + 3 * i);
    } else {
        size_t parity = i & 1;
        float3 f0;
        switch (parity) {
        case 1: f0 = (float3)(in[3 * i], NAN, NAN); break;
        case 0: f0 = (float3)(in[3 * i], in[3 * i + 1], NAN); break;
        }
        f0 = f0 * f0;
        switch (parity) {
        case 0: out[3 * i + 1] = f0.y;
        case 1: out[3 * i] = f0.x; break;
        }
    }
}

kernel void classify(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int r = 0;
    switch (in[i] & 7) {
    case 0: r += 1;
    case 1: r += 10; break;
    case 5: r = 100;
    default: r += 1000;
    case 6: r += 7; break;
    case 3: return;
    }
    out[i] = r;
}

kernel void nested_break(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int r = 0;
    switch (in[i] & 3) {
    case 0: if (in[i] > 8) break; r = 5; break;
    default: r = 6;
    }
    out[i] = r;
}
"#;

#[test]
fn switches_run_as_if_chains_in_the_vectorized_row() {
    // 3-component vectors, as the CTS writes them: 14 items, the last (odd) takes case 1.
    let items = 14;
    let input: Vec<f32> = (0..3 * items).map(|k| k as f32 * 0.5 - 3.0).collect();
    let out = both(
        SWITCHES,
        "square3",
        range_1d(items, items),
        &|| (vec![input.clone(), vec![-1.0f32; 3 * items]], vec![]),
        false,
    );
    let why = kernel(SWITCHES, "square3", false).vectorized.clone();
    assert!(
        why.as_ref().is_err_and(|e| e.ends_with(
            "would run lane by lane (no faster than the scalar code, and costlier to compile)"
        )),
        "{why:?}"
    );
    let mut want: Vec<f32> = input.iter().map(|x| x * x).collect();
    // The last item (13, odd parity) writes only its x.
    want[3 * 13 + 1] = -1.0;
    want[3 * 13 + 2] = -1.0;
    assert_eq!(out, want);
    // Every case, the fall-throughs into and out of `default`, and a `return` in a case.
    let n = 24;
    let ints: Vec<i32> = (0..n as i32).map(|k| k * 5 + 3).collect();
    let out = both(
        SWITCHES,
        "classify",
        range_1d(n, 8),
        &|| (vec![ints.clone(), vec![-9i32; n]], vec![]),
        true,
    );
    let want: Vec<i32> = ints
        .iter()
        .map(|v| match v & 7 {
            0 => 11,
            1 => 10,
            5 => 1107,
            6 => 7,
            3 => -9,
            _ => 1007,
        })
        .collect();
    assert_eq!(out, want);
    // A `break` inside an `if` of a case: the switch stays, and so does the scalar row.
    let k = kernel(SWITCHES, "nested_break", false);
    assert_eq!(k.vectorized, Err("it has a switch or a goto".to_string()));
}
