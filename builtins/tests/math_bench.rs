//! Speed of the hot `float` math builtins against Rust's `std` (the host libm: glibc on
//! Linux), in ns per element over 1M elements. Ignored (timings need a quiet, optimized
//! build): `cargo test --release -p clift-builtins --test math_bench -- --ignored
//! --nocapture`.
//!
//! Both sides are called through a function pointer the optimizer cannot see through, as
//! kernels call the builtins (by symbol, from JIT-compiled code); each figure is the best of
//! 7 passes.

use clift_builtins::math::*;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 1 << 20;

struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let u = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * u
    }
}

/// Best ns/element of `out[i] = f(xs[i])`: the elementwise throughput a kernel sees. (A
/// loop that sums the results instead is bound by the latency of the sum kept on the stack
/// across the calls, and its timing then swings by 2× with code placement.)
fn time1(f: &dyn Fn(f32) -> f32, xs: &[f32]) -> f64 {
    let mut out = vec![0.0f32; xs.len()];
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let start = Instant::now();
        for (o, &x) in out.iter_mut().zip(xs) {
            *o = f(x);
        }
        black_box(&mut out);
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / xs.len() as f64);
    }
    best
}

fn time3(f: &dyn Fn(f32, f32, f32) -> f32, xs: &[f32], ys: &[f32], zs: &[f32]) -> f64 {
    let mut out = vec![0.0f32; xs.len()];
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let start = Instant::now();
        for (i, o) in out.iter_mut().enumerate() {
            *o = f(xs[i], ys[i], zs[i]);
        }
        black_box(&mut out);
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / xs.len() as f64);
    }
    best
}

#[test]
#[ignore]
fn speed_vs_std() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut fill = |lo, hi| -> Vec<f32> { (0..N).map(|_| rng.uniform(lo, hi)).collect() };
    let trig = fill(-100.0, 100.0);
    let exp_args = fill(-80.0, 80.0);
    let positive = fill(1e-6, 1e6);
    let base = fill(0.0, 100.0);
    let power = fill(-10.0, 10.0);
    let any = fill(-1e3, 1e3);
    let any2 = fill(-1e3, 1e3);

    // Function pointers, hidden from the optimizer.
    let ours1 = |f: extern "C" fn(f32) -> f32| {
        let f = black_box(f);
        move |x: f32| f(x)
    };
    let std1 = |f: fn(f32) -> f32| {
        let f = black_box(f);
        move |x: f32| f(x)
    };
    let pow_ours = black_box(clift_pow_f32 as extern "C" fn(f32, f32) -> f32);
    let pow_std = black_box((|x: f32, y: f32| x.powf(y)) as fn(f32, f32) -> f32);
    let fma_ours = black_box(clift_fma_f32 as extern "C" fn(f32, f32, f32) -> f32);
    let fma_std = black_box((|x: f32, y: f32, z: f32| x.mul_add(y, z)) as fn(f32, f32, f32) -> f32);

    let rows: Vec<(&str, f64, f64)> = vec![
        (
            "sin",
            time1(&ours1(clift_sin_f32), &trig),
            time1(&std1(f32::sin), &trig),
        ),
        (
            "cos",
            time1(&ours1(clift_cos_f32), &trig),
            time1(&std1(f32::cos), &trig),
        ),
        (
            "exp",
            time1(&ours1(clift_exp_f32), &exp_args),
            time1(&std1(f32::exp), &exp_args),
        ),
        (
            "log",
            time1(&ours1(clift_log_f32), &positive),
            time1(&std1(f32::ln), &positive),
        ),
        (
            "pow",
            time3(&|x, y, _| pow_ours(x, y), &base, &power, &base),
            time3(&|x, y, _| pow_std(x, y), &base, &power, &base),
        ),
        (
            "sqrt",
            time1(&ours1(clift_sqrt_f32), &positive),
            time1(&std1(f32::sqrt), &positive),
        ),
        (
            "fma",
            time3(&|x, y, z| fma_ours(x, y, z), &any, &any2, &exp_args),
            time3(&|x, y, z| fma_std(x, y, z), &any, &any2, &exp_args),
        ),
    ];
    println!("| function | clift (ns/elem) | std (ns/elem) | ratio |");
    println!("|---|---|---|---|");
    for (name, ours, theirs) in rows {
        println!(
            "| {name} | {ours:.2} | {theirs:.2} | {:.2} |",
            ours / theirs
        );
    }
}
