//! Scheduled code (`codegen/schedule.rs`) computes what Cranelift's order computes:
//! clpeak's `double16` and `int16` multiply-add chains, in the vectorized row, in the
//! scalar row with vector registers, and with scheduling off, give the host's values bit
//! for bit.

mod common;

use std::sync::Arc;

use clift_compiler::codegen::CodegenOptions;
use clift_compiler::kernel::KernelCode;

const SOURCE: &str = "
#define MAD_4(x, y)  x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define IMAD_4(x, y) x = (y * x) + y; y = (x * y) + x; x = (y * x) + y; y = (x * y) + x;
#define LANES16(T, a) (T)(a, (a + 1), (a + 2), (a + 3), (a + 4), (a + 5), (a + 6), (a + 7), \\
    (a + 8), (a + 9), (a + 10), (a + 11), (a + 12), (a + 13), (a + 14), (a + 15))
#define DP(name, hint) \\
hint kernel void name(global double16 *out, double a) { \\
    double16 x = LANES16(double16, a) * 0.01; \\
    double16 y = (double16)(get_global_id(0) * 0.001); \\
    for (int i = 0; i < 8; i++) { MAD_4(x, y); MAD_4(x, y); } \\
    out[get_global_id(0)] = x + y; \\
}
/* The cost rule runs double16 chains in the scalar row; the hint vectorizes them. */
DP(dp, )
DP(dp_vectorized, __attribute__((vec_type_hint(double))))
kernel void integer(global int16 *out, int a) {
    int16 x = LANES16(int16, a);
    int16 y = (int16)get_global_id(0);
    for (int i = 0; i < 8; i++) { IMAD_4(x, y); IMAD_4(x, y); }
    out[get_global_id(0)] = x ^ y;
}
";

/// What `dp` writes for item `g`: `mad` fused (`-cl-mad-enable`).
fn dp_want(g: usize, a: f64) -> [f64; 16] {
    std::array::from_fn(|c| {
        let (mut x, mut y) = ((a + c as f64) * 0.01, g as f64 * 0.001);
        for _ in 0..8 * 4 {
            x = y.mul_add(x, y);
            y = x.mul_add(y, x);
        }
        x + y
    })
}

/// What `integer` writes for item `g` (wrapping arithmetic).
fn integer_want(g: usize, a: i32) -> [i32; 16] {
    std::array::from_fn(|c| {
        let (mut x, mut y) = (a.wrapping_add(c as i32), g as i32);
        for _ in 0..8 * 4 {
            x = y.wrapping_mul(x).wrapping_add(y);
            y = x.wrapping_mul(y).wrapping_add(x);
        }
        x ^ y
    })
}

/// The outputs of `name` over 40 items (groups of 8 and a remainder of 4 items per
/// vectorized step) for every combination of the vectorized row and scheduling.
fn outputs<T: Copy + Default>(name: &str, arg: u64) -> Vec<Vec<[T; 16]>> {
    every_order(SOURCE)
        .into_iter()
        .map(|(kernels, _)| {
            let k = kernels.iter().find(|k| k.name == name).expect("the kernel");
            let mut out = vec![[T::default(); 16]; 40];
            common::run_1d(k, 40, 8, &[out.as_mut_ptr() as u64, arg], 0);
            out
        })
        .collect()
}

/// The kernels of `source` (`-cl-mad-enable`) for every combination of the vectorized row
/// and scheduling, each with a name for the combination.
fn every_order(source: &str) -> Vec<(Vec<Arc<KernelCode>>, String)> {
    [(false, false), (false, true), (true, false), (true, true)]
        .into_iter()
        .map(|(scalar_only, unscheduled)| {
            let codegen = CodegenOptions {
                scalar_only,
                unscheduled,
                mad_enable: true,
                ..Default::default()
            };
            let what = format!("scalar_only {scalar_only}, unscheduled {unscheduled}");
            (common::compile_fp64(source, codegen), what)
        })
        .collect()
}

#[test]
fn double16_mad_chains_give_the_fused_host_values_in_every_order() {
    let want: Vec<[u64; 16]> = (0..40).map(|g| dp_want(g, 1.3).map(f64::to_bits)).collect();
    // Which row each runs in when the vectorizer may run.
    let kernels = common::compile_fp64(SOURCE, CodegenOptions::default());
    let row = |name: &str| {
        kernels
            .iter()
            .find(|k| k.name == name)
            .unwrap()
            .vectorized
            .is_ok()
    };
    assert_eq!((row("dp"), row("dp_vectorized")), (false, true));
    for name in ["dp", "dp_vectorized"] {
        for out in outputs::<f64>(name, 1.3f64.to_bits()) {
            let bits: Vec<[u64; 16]> = out.iter().map(|v| v.map(f64::to_bits)).collect();
            assert_eq!(bits, want, "{name}");
        }
    }
    // The chains stay finite: item 1's first lane.
    assert_eq!(dp_want(1, 1.3)[0], 0.0021626094751268444);
}

#[test]
fn int16_multiply_add_chains_give_the_wrapping_host_values_in_every_order() {
    let want: Vec<[i32; 16]> = (0..40).map(|g| integer_want(g, 3)).collect();
    for out in outputs::<i32>("integer", 3) {
        assert_eq!(out, want);
    }
    // Item 5's third lane, as a check of the host model itself.
    assert_eq!(integer_want(5, 3)[2], 1778433744);
}

/// The loop of the bandwidth kernel folds each 16-byte load into its add (`codegen/
/// fold_loads.rs`): 16 `vaddps` with a memory operand per 4 fetches, nothing spilled to
/// the stack, and the sums are the host's in every row and order.
#[test]
fn the_float16_bandwidth_loop_adds_from_memory_and_keeps_the_host_sums() {
    let (items, local) = (24usize, 8usize);
    let a: Vec<f32> = (0..items * 16 * 16)
        .map(|i| (i % 251) as f32 / 251.0)
        .collect();
    let want: Vec<u32> = (0..items)
        .map(|g| common::clpeak::bandwidth16_want(g, local, &a).to_bits())
        .collect();
    for (kernels, what) in every_order(common::clpeak::BANDWIDTH16) {
        let mut out = vec![0f32; items];
        common::run_1d(
            &kernels[0],
            items,
            local,
            &[a.as_ptr() as u64, out.as_mut_ptr() as u64],
            0,
        );
        let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want, "{what}");
    }
    let asm = machine_code(common::clpeak::BANDWIDTH16, "'bandwidth'");
    let from_memory = asm
        .lines()
        .filter(|l| l.trim_start().starts_with("vaddps 0x") || l.contains("vaddps ("))
        .count();
    assert_eq!(from_memory, 16, "{asm}");
    assert!(!asm.contains("(%rsp)"), "{asm}");
    // The sum of item 0 itself, as a check of the host model.
    assert_eq!(common::clpeak::bandwidth16_want(0, local, &a), 90.77291);
}

/// The `double16` chains' loop (`dp`'s scalar row) is one `vfmadd213pd` per `mad` and the
/// counter's step: each `fma` writes over the factor that dies in it (`codegen/
/// fma_operands.rs`), so no register is copied and nothing goes to the stack. (Its values
/// are the host's: `double16_mad_chains_give_the_fused_host_values_in_every_order`.)
#[test]
fn the_double16_chains_fuse_in_place_without_copies_or_spills() {
    let asm = machine_code(SOURCE, "'dp'");
    // The machine code's blocks, each as its instruction lines.
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for line in asm.lines() {
        if line.starts_with("block") {
            blocks.push(Vec::new());
        } else if let Some(block) = blocks.last_mut() {
            block.push(line.trim());
        }
    }
    let fmas = |b: &Vec<&str>| b.iter().filter(|l| l.starts_with("vfmadd")).count();
    let body = blocks.iter().max_by_key(|b| fmas(b)).expect("blocks");
    // 8 `mad`s of 8 `f64x2` registers per iteration.
    assert_eq!(fmas(body), 64, "{asm}");
    let others: Vec<&str> = body
        .iter()
        .filter(|l| !l.starts_with("vfmadd213pd"))
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(others, ["leal", "jmp"], "{asm}");
}

/// The machine code of the function `name` of `source` built with `-cl-mad-enable`.
fn machine_code(source: &str, name: &str) -> String {
    let codegen = CodegenOptions {
        mad_enable: true,
        ..Default::default()
    };
    common::machine_code(source, name, codegen)
}
