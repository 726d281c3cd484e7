//! Late rows (`codegen/late.rs`): a large vectorized row is compiled after the build
//! returns; launches before it is installed run the scalar row, with the same results, and
//! a program released meanwhile frees its code.

mod common;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clift_compiler::codegen::{
    CodegenOptions, hold_late_rows, late_compiles_running, late_rows_pending, stub_rows,
    wait_for_late_rows,
};
use clift_compiler::kernel::KernelCode;
use common::{compile_fp64, run_1d};

/// An escape-time row of the Mandelbrot set: its vectorized row (325 instructions)
/// is a late row; vector add's (55) is not.
const SOURCE: &str = "
kernel void escape_time(global int *counts, float x0, float dx, float ci, int limit) {
    int x = get_global_id(0);
    float cr = x0 + dx * x;
    float zr = 0.0f, zi = 0.0f;
    int n = 0;
    while (n < limit && zr * zr + zi * zi < 4.0f) {
        float zr_next = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = zr_next;
        n += 1;
    }
    counts[x] = n;
}
kernel void vadd(global const float *a, global const float *b, global float *c) {
    int i = get_global_id(0);
    c[i] = a[i] + b[i];
}
";

/// The hold is process-wide: the tests of this file take turns.
static TURN: Mutex<()> = Mutex::new(());

const WIDTH: usize = 256;
const LIMIT: i32 = 64;
/// 3 / 256, exact in binary.
const DX: f32 = 0.011_718_75;
/// The row's imaginary part: the real axis.
const CI: f32 = 0.0;

/// The kernels of `SOURCE`, with late rows where `defer`.
fn kernels(defer: bool) -> Vec<Arc<KernelCode>> {
    compile_fp64(
        SOURCE,
        CodegenOptions {
            defer_rows: defer,
            ..Default::default()
        },
    )
}

/// The iteration counts along the real axis from -2 in steps of 3 / `WIDTH`, as the kernel
/// computes them (no contraction: each operation rounds).
fn expected() -> Vec<i32> {
    (0..WIDTH)
        .map(|x| {
            let cr = -2.0f32 + DX * x as f32;
            let (mut zr, mut zi, mut n) = (0.0f32, 0.0f32, 0);
            while n < LIMIT && zr * zr + zi * zi < 4.0 {
                let zr_next = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + CI;
                zr = zr_next;
                n += 1;
            }
            n
        })
        .collect()
}

/// Runs `escape_time` over the row in groups of 64 work-items.
fn run(kernel: &KernelCode) -> Vec<i32> {
    let mut out = vec![-1i32; WIDTH];
    let float = |v: f32| u64::from(v.to_bits());
    let args = [
        out.as_mut_ptr() as u64,
        float(-2.0),
        float(DX),
        float(CI),
        LIMIT as u64,
    ];
    run_1d(kernel, WIDTH, 64, &args, 0);
    out
}

#[test]
fn the_row_gives_the_same_counts_before_and_after_it_is_installed() {
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let want = expected();
    // Spot values: outside the set at both ends, inside (every iteration) between.
    let spots = (want[0], want[100], want[128], want[200], want[255]);
    assert_eq!(spots, (1, 64, 64, 9, 3));
    assert_eq!(want.iter().sum::<i32>(), 12627);
    let hold = hold_late_rows();
    let k = kernels(true);
    let (escape, vadd) = (&k[0], &k[1]);
    assert!(late_rows_pending(escape));
    assert_eq!(stub_rows(escape), 1);
    assert_eq!(escape.vectorized, Ok(8));
    // The scalar row runs every item.
    assert_eq!(run(escape), want);
    // Vector add's row is compiled: its launches need not wait.
    assert!(!late_rows_pending(vadd));
    drop(hold);
    wait_for_late_rows(escape);
    assert!(!late_rows_pending(escape));
    assert_eq!(stub_rows(escape), 0);
    assert_eq!(run(escape), want);
}

#[test]
fn launches_while_the_row_is_compiled_are_correct() {
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let want = expected();
    let k = kernels(true);
    let escape = &k[0];
    // Launch until the row is installed (some launches race the slot's store), then once
    // more with it.
    let mut launches = 0;
    while late_rows_pending(escape) {
        assert_eq!(run(escape), want, "launch {launches}");
        launches += 1;
    }
    wait_for_late_rows(escape);
    assert_eq!(stub_rows(escape), 0);
    assert_eq!(run(escape), want);
}

#[test]
fn a_program_released_during_the_compile_frees_its_code_and_the_compile_ends() {
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let running = late_compiles_running();
    let hold = hold_late_rows();
    let k = kernels(true);
    let entry = k[0].entry as usize;
    assert!(clift_compiler::jit::code_ranges::contains(entry));
    let owner = Arc::downgrade(k[0].code_owner.as_ref().expect("compiled code"));
    assert_eq!(late_compiles_running(), running + 1);
    drop(k);
    // The compile holds no reference: the code is freed with the last kernel.
    assert!(owner.upgrade().is_none());
    assert!(!clift_compiler::jit::code_ranges::contains(entry));
    drop(hold);
    // The compile, finished or not, is abandoned.
    let deadline = Instant::now() + Duration::from_secs(60);
    while late_compiles_running() > running {
        assert!(Instant::now() < deadline, "the late compile never ended");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn without_deferring_every_row_is_compiled_in_the_build() {
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let hold = hold_late_rows();
    let k = kernels(false);
    assert!(!late_rows_pending(&k[0]));
    assert_eq!(stub_rows(&k[0]), 0);
    assert_eq!(run(&k[0]), expected());
    drop(hold);
    // Deferring, a small row alone is compiled in the build: nothing is late.
    let _hold = hold_late_rows();
    let vadd = compile_fp64(
        "kernel void vadd(global const float *a, global const float *b, global float *c) {
             int i = get_global_id(0);
             c[i] = a[i] + b[i];
         }",
        CodegenOptions {
            defer_rows: true,
            ..Default::default()
        },
    );
    assert!(!late_rows_pending(&vadd[0]));
    assert_eq!(stub_rows(&vadd[0]), 0);
}

#[test]
fn a_reduction_region_installed_late_gives_the_same_sums() {
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let hold = hold_late_rows();
    // The bench's reduction kernel alone.
    let bench = include_str!("bench_kernels.cl");
    let start = bench.find("kernel void reduce").expect("reduce");
    let end = bench.find("kernel void triad").expect("triad");
    let k = compile_fp64(
        &bench[start..end],
        CodegenOptions {
            defer_rows: true,
            ..Default::default()
        },
    );
    let reduce = k.iter().find(|k| k.name == "reduce").expect("reduce");
    // The region `if (lid < s) scratch[lid] += scratch[lid + s];` is late.
    assert_eq!(stub_rows(reduce), 1);
    let (groups, local) = (8usize, 64usize);
    let input: Vec<f32> = (1..=groups * local).map(|v| v as f32).collect();
    let sums = || {
        let mut out = vec![0f32; groups];
        let args = [input.as_ptr() as u64, out.as_mut_ptr() as u64, 0];
        common::run_1d(reduce, groups * local, local, &args, local * 4);
        out
    };
    // Group g sums g * 64 + 1 ..= g * 64 + 64: 4096 g + 2080, exact in floats.
    let want: Vec<f32> = (0..groups).map(|g| (4096 * g + 2080) as f32).collect();
    assert_eq!(sums(), want);
    drop(hold);
    wait_for_late_rows(reduce);
    assert_eq!(stub_rows(reduce), 0);
    assert_eq!(sums(), want);
}
