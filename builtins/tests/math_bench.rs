//! Speed of the hot `float` math builtins against Rust's `std` (the host libm: glibc on
//! Linux), in ns per element over 1M elements. Ignored (timings need a quiet, optimized
//! build): `cargo test --release -p clift-builtins --test math_bench -- --ignored
//! --nocapture`.
//!
//! Both sides are called through a function pointer the optimizer cannot see through, as
//! kernels call the builtins (by symbol, from JIT-compiled code); each figure is the best of
//! 7 passes.

// The four-lane forms pass `__m128` (no `repr(C)`), one `xmm` register in the System V ABI.
#![allow(
    improper_ctypes_definitions,
    reason = "__m128 is one xmm register in the System V calling convention"
)]

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

/// The arguments of the timed functions: uniform over each function's usual range.
struct Inputs {
    trig: Vec<f32>,
    exp_args: Vec<f32>,
    positive: Vec<f32>,
    base: Vec<f32>,
    power: Vec<f32>,
    /// The generator, for more.
    rng: Rng,
}

fn inputs() -> Inputs {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut fill = |lo, hi| -> Vec<f32> { (0..N).map(|_| rng.uniform(lo, hi)).collect() };
    Inputs {
        trig: fill(-100.0, 100.0),
        exp_args: fill(-80.0, 80.0),
        positive: fill(1e-6, 1e6),
        base: fill(0.0, 100.0),
        power: fill(-10.0, 10.0),
        rng,
    }
}

#[test]
#[ignore]
fn speed_vs_std() {
    let Inputs {
        trig,
        exp_args,
        positive,
        base,
        power,
        mut rng,
    } = inputs();
    let mut fill = |lo, hi| -> Vec<f32> { (0..N).map(|_| rng.uniform(lo, hi)).collect() };
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

/// Best ns/element of the four-lane form `v4` (one call per 4 elements, as the vectorized
/// row calls it) over `xs`.
#[cfg(target_arch = "x86_64")]
fn time_v4(
    v4: unsafe extern "C" fn(
        std::arch::x86_64::__m128,
        std::arch::x86_64::__m128,
    ) -> std::arch::x86_64::__m128,
    xs: &[f32],
    ys: &[f32],
) -> f64 {
    use std::arch::x86_64::{__m128, _mm_set_ps};
    let mut out = vec![[0.0f32; 4]; xs.len() / 4];
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let start = Instant::now();
        for (i, o) in out.iter_mut().enumerate() {
            let (x, y) = (&xs[4 * i..4 * i + 4], &ys[4 * i..4 * i + 4]);
            // SAFETY: the four-lane forms are plain functions of their registers.
            let r = unsafe {
                v4(
                    _mm_set_ps(x[3], x[2], x[1], x[0]),
                    _mm_set_ps(y[3], y[2], y[1], y[0]),
                )
            };
            // SAFETY: an `__m128` is four `f32` lanes, lane 0 first.
            *o = unsafe { std::mem::transmute::<__m128, [f32; 4]>(r) };
        }
        black_box(&mut out);
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / xs.len() as f64);
    }
    best
}

/// The four-lane forms `clift_v4_*_f32` (one call per 4 elements) against 4 calls of the
/// scalar function, in ns per element: `cargo test --release -p clift-builtins --test
/// math_bench -- --ignored --nocapture lanes_vs_scalar`.
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore]
fn lanes_vs_scalar() {
    use std::arch::x86_64::__m128;
    type V1 = extern "C" fn(__m128) -> __m128;
    type V2 = extern "C" fn(__m128, __m128) -> __m128;
    type Lanes2 = unsafe extern "C" fn(__m128, __m128) -> __m128;
    let args = inputs();
    // A one-argument form as a two-argument one that ignores its second register: the same
    // call for every row. (The System V ABI passes the ignored register in xmm1.)
    let one = |f: V1| -> Lanes2 {
        // SAFETY: an `extern "C" fn(__m128) -> __m128` called with one more `__m128`
        // argument (in xmm1) ignores it, under System V.
        unsafe { std::mem::transmute::<V1, Lanes2>(f) }
    };
    let two = |f: V2| -> Lanes2 { f };
    let scalar1 = |f: extern "C" fn(f32) -> f32| {
        let f = black_box(f);
        move |x: f32| f(x)
    };
    type Row<'a> = (&'a str, V1, extern "C" fn(f32) -> f32, &'a [f32]);
    let one_argument: [Row; 6] = [
        ("sin", clift_v4_sin_f32, clift_sin_f32, &args.trig),
        ("cos", clift_v4_cos_f32, clift_cos_f32, &args.trig),
        ("exp", clift_v4_exp_f32, clift_exp_f32, &args.exp_args),
        ("exp2", clift_v4_exp2_f32, clift_exp2_f32, &args.exp_args),
        ("log", clift_v4_log_f32, clift_log_f32, &args.positive),
        ("log2", clift_v4_log2_f32, clift_log2_f32, &args.positive),
    ];
    let mut rows: Vec<(&str, f64, f64)> = one_argument
        .into_iter()
        .map(|(name, v4, scalar, xs)| {
            let four = time_v4(black_box(one(v4)), xs, xs);
            (name, four, time1(&scalar1(scalar), xs))
        })
        .collect();
    let pow = black_box(clift_pow_f32 as extern "C" fn(f32, f32) -> f32);
    rows.push((
        "pow",
        time_v4(black_box(two(clift_v4_pow_f32)), &args.base, &args.power),
        time3(&|x, y, _| pow(x, y), &args.base, &args.power, &args.base),
    ));
    println!("| function | four-lane form (ns/elem) | scalar calls (ns/elem) | ratio |");
    println!("|---|---|---|---|");
    for (name, v4, scalar) in rows {
        println!("| {name} | {v4:.2} | {scalar:.2} | {:.2} |", v4 / scalar);
    }
}
