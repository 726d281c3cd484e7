//! Loops that step a pointer instead of a 32-bit index (`codegen/step_pointers.rs`): which
//! loops are rewritten (read off the machine code), and that every kernel gives the host's
//! values with the rewrite and without it, vectorized and scalar, scheduled and not.

mod common;

use std::sync::Arc;

use clift_compiler::codegen::CodegenOptions;
use clift_compiler::kernel::KernelCode;

/// A device's largest object as the tests' builds assume it: 1 GiB, so that indices of
/// elements of 4 bytes or more step pointers (2^31 × 4 bytes is larger).
const MAX_OBJECT: u64 = 1 << 30;

/// clpeak's `float16` bandwidth kernel (`bandwidth`, an `int` stepped by a `size_t`) and
/// these kernels, each a loop the rule covers or does not.
fn source() -> String {
    format!("{}{OTHERS}", common::clpeak::BANDWIDTH16)
}

const OTHERS: &str = "
/* A uint index read as an int: it wraps around 2^32 (from -16 + gid up through 0). */
kernel void wraps(global float *A, global float *B, uint start) {
    global float *p = A + 64;
    uint u = start + (uint)get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 8; i++) { sum += p[(int)u]; u += 4u; }
    B[get_global_id(0)] = sum;
}
/* A uint index (zero-extended) stepped down by adding 0xffffffff: kept as an index. */
kernel void unsigned_index(global float *A, global float *B) {
    uint u = 20 + (uint)get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 8; i++) { sum += A[u]; u += 0xffffffffu; }
    B[get_global_id(0)] = sum;
}
/* The access is (int)(u + v), not u itself: a derived index, which gets an induction
   variable of its own (codegen/step_pointers/split.rs); u then lives for nothing and goes. */
kernel void sum_index(global float *A, global float *B, uint v) {
    uint u = (uint)get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 8; i++) { sum += A[(int)(u + v)]; u += 3u; }
    B[get_global_id(0)] = sum;
}
/* A derived index: each item reads its own 8 neighbours, A[id + i] with id invariant
   (clpeak's read in sequence, v16seq). */
kernel void derived(global float *A, global float *B) {
    int id = (int)get_global_id(0) * 4;
    float sum = 0;
    for (int i = 0; i < 8; i++) { sum += A[id + i]; }
    B[get_global_id(0)] = sum;
}
/* The step changes in the loop. */
kernel void varying_step(global float *A, global float *B) {
    int id = get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 8; i++) { sum += A[id]; id += i; }
    B[get_global_id(0)] = sum;
}
/* Two steps between accesses. */
kernel void double_step(global float *A, global float *B) {
    int id = get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 4; i++) { sum += A[id]; id += 2; id += 3; }
    B[get_global_id(0)] = sum;
}
/* A step that no access precedes on every path. */
kernel void guarded(global float *A, global float *B) {
    int id = get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 8; i++) { if (i & 1) sum += A[id]; id += 3; }
    B[get_global_id(0)] = sum;
}
/* The index is read after the loop: its steps stay. A scale of 16 is no x64 address
   scale, so the address still steps; a scale of 4 keeps the index's address. */
kernel void index_after(global float4 *A, global float *B) {
    int id = get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 8; i++) { sum += A[id].y; id += 5; }
    B[get_global_id(0)] = sum + (float)id;
}
kernel void index_after_narrow(global float *A, global float *B) {
    int id = get_global_id(0);
    float sum = 0;
    for (int i = 0; i < 8; i++) { sum += A[id]; id += 5; }
    B[get_global_id(0)] = sum + (float)id;
}
";

/// The kernels of [`source`] built with and without the size bound, vectorized and not,
/// scheduled and not, each with a name for the combination.
fn every_build() -> Vec<(Vec<Arc<KernelCode>>, String)> {
    let mut builds = Vec::new();
    for max_object_size in [0, MAX_OBJECT] {
        for (scalar_only, unscheduled) in [(false, false), (true, false), (true, true)] {
            let codegen = CodegenOptions {
                scalar_only,
                unscheduled,
                max_object_size,
                ..Default::default()
            };
            let what = format!(
                "max_object_size {max_object_size}, scalar_only {scalar_only}, \
                 unscheduled {unscheduled}"
            );
            builds.push((common::compile_fp64(&source(), codegen), what));
        }
    }
    builds
}

fn kernel<'a>(kernels: &'a [Arc<KernelCode>], name: &str) -> &'a KernelCode {
    kernels.iter().find(|k| k.name == name).expect("the kernel")
}

/// What `name` writes over `items` items (groups of 8) with `a` and the extra argument
/// `arg`, in every build; each build's output as bits.
fn outputs(name: &str, items: usize, a: &[f32], arg: Option<u32>) -> Vec<(Vec<u32>, String)> {
    every_build()
        .into_iter()
        .map(|(kernels, what)| {
            let mut out = vec![0f32; items];
            let mut args = vec![a.as_ptr() as u64, out.as_mut_ptr() as u64];
            args.extend(arg.map(u64::from));
            common::run_1d(kernel(&kernels, name), items, 8, &args, 0);
            (out.iter().map(|v| v.to_bits()).collect(), what)
        })
        .collect()
}

/// `a[i] = (i % 251) / 251`, as clpeak fills its buffer.
fn input(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 251) as f32 / 251.0).collect()
}

/// Sums `a[index(k)]` for k = 0..n, left to right.
fn host_sum(a: &[f32], n: usize, index: impl Fn(usize) -> usize) -> f32 {
    (0..n).fold(0.0, |s, k| s + a[index(k)])
}

fn assert_host(name: &str, items: usize, a: &[f32], arg: Option<u32>, want: &[f32]) {
    let want: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
    for (got, what) in outputs(name, items, a, arg) {
        assert_eq!(got, want, "{name}, {what}");
    }
}

#[test]
fn the_float16_bandwidth_kernel_gives_the_host_sums_with_a_stepped_pointer() {
    let (items, local) = (24usize, 8usize);
    let a = input(items * 16 * 16);
    let want: Vec<f32> = (0..items)
        .map(|g| common::clpeak::bandwidth16_want(g, local, &a))
        .collect();
    assert_host("bandwidth", items, &a, None, &want);
    assert_eq!(want[0], 90.77291);
}

#[test]
fn a_uint_index_read_as_int_still_wraps_around_2_to_the_32() {
    let a = input(256);
    // p = A + 64; item g reads p[-16 + g + 4k] for k = 0..8.
    let want: Vec<f32> = (0..16)
        .map(|g| host_sum(&a, 8, |k| 64 - 16 + g + 4 * k))
        .collect();
    assert_host("wraps", 16, &a, Some(0xffff_fff0), &want);
    assert_eq!(want[0], host_sum(&a, 8, |k| 48 + 4 * k));
}

#[test]
fn loops_the_rule_does_not_cover_keep_their_values() {
    let a = input(256);
    let unsigned: Vec<f32> = (0..16).map(|g| host_sum(&a, 8, |k| 20 + g - k)).collect();
    assert_host("unsigned_index", 16, &a, None, &unsigned);
    let summed: Vec<f32> = (0..16)
        .map(|g| host_sum(&a, 8, |k| g + 3 * k + 7))
        .collect();
    assert_host("sum_index", 16, &a, Some(7), &summed);
    let derived: Vec<f32> = (0..16).map(|g| host_sum(&a, 8, |k| 4 * g + k)).collect();
    assert_host("derived", 16, &a, None, &derived);
    // id = g + 0 + 1 + ... + (k - 1) before the k-th access.
    let varying: Vec<f32> = (0..16)
        .map(|g| host_sum(&a, 8, |k| g + (0..k).sum::<usize>()))
        .collect();
    assert_host("varying_step", 16, &a, None, &varying);
    let double: Vec<f32> = (0..16).map(|g| host_sum(&a, 4, |k| g + 5 * k)).collect();
    assert_host("double_step", 16, &a, None, &double);
    // Odd i only: ids g + 3, g + 9, g + 15, g + 21.
    let guarded: Vec<f32> = (0..16)
        .map(|g| host_sum(&a, 4, |k| g + 3 * (2 * k + 1)))
        .collect();
    assert_host("guarded", 16, &a, None, &guarded);
    let after: Vec<f32> = (0..16)
        .map(|g| host_sum(&a, 8, |k| 4 * (g + 5 * k) + 1) + (g + 40) as f32)
        .collect();
    assert_host("index_after", 16, &a, None, &after);
    let narrow: Vec<f32> = (0..16)
        .map(|g| host_sum(&a, 8, |k| g + 5 * k) + (g + 40) as f32)
        .collect();
    assert_host("index_after_narrow", 16, &a, None, &narrow);
}

/// The machine code of the scalar row of `name`, built with `max_object_size`.
fn machine_code(name: &str, max_object_size: u64) -> String {
    let codegen = CodegenOptions {
        scalar_only: true,
        max_object_size,
        ..Default::default()
    };
    common::machine_code(&source(), &format!("'{name}'"), codegen)
}

/// The machine code's blocks, each as its instructions' mnemonics.
fn blocks(asm: &str) -> Vec<Vec<String>> {
    let mut blocks: Vec<Vec<String>> = vec![Vec::new()];
    for line in asm.lines() {
        if line.starts_with("block") {
            blocks.push(Vec::new());
        } else if let Some(block) = blocks.last_mut() {
            let line = line.trim();
            if !line.is_empty() && !line.starts_with(';') && !line.starts_with("unwind") {
                block.push(line.to_string());
            }
        }
    }
    blocks
}

/// clpeak's loop: 16 `vaddps` from `[P + O + 16 n]`, the pointer's `leaq` and the counter's
/// `leal` per 4 fetches; without the bound, each fetch also has its `leal`, `movslq` and
/// shift.
#[test]
fn the_float16_bandwidth_loop_is_its_adds_and_two_steps() {
    let asm = machine_code("bandwidth", MAX_OBJECT);
    let adds = |b: &Vec<String>| b.iter().filter(|l| l.starts_with("vaddps")).count();
    let all = blocks(&asm);
    let body = all.iter().max_by_key(|b| adds(b)).expect("blocks");
    assert_eq!(adds(body), 16, "{asm}");
    assert!(
        body.iter()
            .all(|l| !l.starts_with("vaddps") || l.contains('('))
    );
    let others: Vec<&str> = body
        .iter()
        .filter(|l| !l.starts_with("vaddps"))
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(others, ["leal", "leaq", "jmp"], "{asm}");
    let plain = machine_code("bandwidth", 0);
    let all = blocks(&plain);
    let body = all.iter().max_by_key(|b| adds(b)).expect("blocks");
    let extends = body.iter().filter(|l| l.starts_with("movslq")).count();
    assert_eq!(extends, 4, "{plain}");
}

/// The loop's offsets from its pointer (`L`, `2L`, `3L` bytes, with `L` the local size
/// times 64) do not change from item to item: they are computed once, in the row's first
/// block, before the loop over the items (`step_pointers/hoist.rs`), and the block that
/// enters the fetch loop for each item only computes the item's start pointer.
#[test]
fn the_float16_bandwidth_offsets_are_computed_once_per_row() {
    let asm = machine_code("bandwidth", MAX_OBJECT);
    let all = blocks(&asm);
    let scales_by_64 = |b: &Vec<String>| b.iter().filter(|l| l.starts_with("shlq $0x6")).count();
    // blocks[0] is the prologue, blocks[1] the function's first block.
    assert_eq!(scales_by_64(&all[1]), 1, "{asm}");
    let multiples = all[1].iter().filter(|l| l.starts_with("leaq (")).count();
    assert!(multiples >= 3, "{asm}");
    // The item's own start: one more scaled index in the whole function.
    assert_eq!(all.iter().map(scales_by_64).sum::<usize>(), 2, "{asm}");
}

/// The mnemonics of the loop body of `name`'s scalar row (the block that steps the `for`
/// loop's counter, `leal 1(...)`), built with `max_object_size`.
fn loop_body(name: &str, max_object_size: u64) -> Vec<String> {
    let asm = machine_code(name, max_object_size);
    blocks(&asm)
        .into_iter()
        .find(|b| b.iter().any(|l| l.starts_with("leal 1(")))
        .unwrap_or_else(|| panic!("no loop body in\n{asm}"))
        .iter()
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn which_loops_step_a_pointer() {
    // Rewritten: the loop adds from the pointer, steps it (`leaq`) and its counter.
    let stepped = ["vaddss", "leal", "leaq", "jmp"];
    assert_eq!(loop_body("wraps", MAX_OBJECT), stepped);
    assert_eq!(
        loop_body("wraps", 0),
        ["movslq", "leaq", "vaddss", "leal", "leal", "jmp"]
    );
    // Two steps of constants are one step of their sum in the optimized code.
    assert_eq!(loop_body("double_step", MAX_OBJECT), stepped);
    // A derived index, `A[id + i]` with `id` invariant: its own index, stepped (it was
    // `leal`, `movslq` and the add per element); `i` stays for the loop's test.
    assert_eq!(loop_body("derived", MAX_OBJECT), stepped);
    assert_eq!(
        loop_body("derived", 0),
        ["leal", "movslq", "vaddss", "leal", "jmp"]
    );
    // A derived index, `A[(int)(u + v)]`: split into an index of its own, stepped, and
    // `u` gone (it was `leal`, `movslq`, `vaddss`, `leal`, `leal`).
    assert_eq!(loop_body("sum_index", MAX_OBJECT), stepped);
    assert_eq!(
        loop_body("sum_index", 0),
        ["leal", "movslq", "vaddss", "leal", "leal", "jmp"]
    );
    // The index stays (its `leal`) for after the loop; the address of scale 16 steps
    // anyway (it saves the shift).
    assert_eq!(
        loop_body("index_after", MAX_OBJECT),
        ["vpshufd", "leal", "leal", "vaddss", "leaq", "jmp"]
    );
    assert_eq!(
        loop_body("index_after", 0),
        ["movslq", "shlq", "vpshufd", "leal", "leal", "vaddss", "jmp"]
    );
    // Kept: a zero-extended index, a step that changes in the loop, an access that does
    // not come before every step, and an index that stays where the scale (4) is an x64
    // address's.
    let kept = [
        "unsigned_index",
        "varying_step",
        "guarded",
        "index_after_narrow",
    ];
    for name in kept {
        let body = loop_body(name, MAX_OBJECT);
        assert_eq!(body, loop_body(name, 0), "{name}");
        assert!(!body.contains(&"leaq".to_string()), "{name}: {body:?}");
    }
}
