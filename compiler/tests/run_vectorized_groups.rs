//! Steps of several groups of 4 items (`codegen/simd/groups.rs`, the rule in
//! `codegen/simd/unroll.rs`): each row shape that runs in groups (straight-line, masked with
//! `return`, a uniform loop, a loop of varying trip count with `break`/`continue`, a
//! `do`/`while`) runs vectorized and with the vectorizer off, over groups whose size is not
//! a multiple of 16 (the step of 4 groups) nor of 8; the outputs must be bit-identical and
//! equal to the values computed here, and the row function must hold the groups the rule
//! gives.

mod common;

use common::{compile_scalar_only, run_1d};

/// Global and local sizes: a whole step of 16, remainders of 4-item steps and of single
/// items, groups smaller than a step.
const RANGES: [(usize, usize); 5] = [(64, 64), (37, 37), (39, 13), (36, 6), (100, 50)];

/// Runs kernel `name` of `source` vectorized and scalar over `(global, local)` with the
/// input buffers `inputs` (4-byte elements), `values` after them, and an output buffer of
/// `global` elements filled with `fill`; returns the output (both runs' bits are equal).
fn both(
    source: &str,
    name: &str,
    (global, local): (usize, usize),
    inputs: &[Vec<u32>],
    values: &[u64],
    fill: u32,
) -> Vec<u32> {
    let mut outs = Vec::new();
    for scalar_only in [true, false] {
        let kernels = compile_scalar_only(source, scalar_only);
        let k = kernels.iter().find(|k| k.name == name).expect("the kernel");
        if !scalar_only {
            assert!(k.vectorized.is_ok(), "{name}: {:?}", k.vectorized);
        }
        let mut buffers: Vec<Vec<u32>> = inputs.to_vec();
        buffers.push(vec![fill; global]);
        let mut args: Vec<u64> = buffers.iter_mut().map(|b| b.as_mut_ptr() as u64).collect();
        args.extend_from_slice(values);
        run_1d(k, global, local, &args, 0);
        outs.push(buffers.pop().expect("the output"));
    }
    assert_eq!(
        outs[0], outs[1],
        "{name} {global}/{local}: vectorized and scalar differ"
    );
    outs.pop().expect("an output")
}

/// The expected output for a global size and the inputs.
type Want<'a> = &'a dyn Fn(usize, &[Vec<u32>]) -> Vec<u32>;

/// Runs kernel `name` of `source` ([`both`]) over each of [`RANGES`] with the inputs
/// `inputs(global)`, and compares the output with `want(global, inputs)`.
fn check(
    (source, name): (&str, &str),
    inputs: &dyn Fn(usize) -> Vec<Vec<u32>>,
    (values, fill): (&[u64], u32),
    want: Want,
) {
    for (global, local) in RANGES {
        let ins = inputs(global);
        let out = both(source, name, (global, local), &ins, values, fill);
        assert_eq!(out, want(global, &ins), "{name} {global}/{local}");
    }
}

/// Asserts that kernel `name`'s vectorized row function has `n` instructions `inst`.
fn count(source: &str, name: &str, inst: &str, n: usize) {
    let clif = row_clif(source, name);
    assert_eq!(clif.matches(inst).count(), n, "{clif}");
}

/// The CLIF of kernel `name`'s vectorized row function.
fn row_clif(source: &str, name: &str) -> String {
    let want = format!("vectorized row function of {name}");
    clift_compiler::codegen::dump::collect_during(|| {
        compile_scalar_only(source, false);
    })
    .clif
    .into_iter()
    .find(|(n, _)| *n == want)
    .expect("the vectorized row function's CLIF")
    .1
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 4000) as f32 / 100.0)
        .collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

const TRIAD: &str = "
kernel void triad(global const float *b, global const float *c, global float *a, float s) {
    size_t i = get_global_id(0);
    /* A uniform loop: a row without loops keeps one group (`simd/unroll.rs`). */
    for (int r = 0; r < 1; r++) a[i] = b[i] + s * c[i];
}";

#[test]
fn straight_line_bodies_of_uniform_loops_run_four_groups_per_step() {
    let s = 0.75f32;
    check(
        (TRIAD, "triad"),
        &|n| vec![bits(&floats(n, 1)), bits(&floats(n, 2))],
        (&[u64::from(s.to_bits())], 0),
        &|n, ins| {
            let f = |k: usize, i: usize| f32::from_bits(ins[k][i]);
            (0..n).map(|i| (f(0, i) + s * f(1, i)).to_bits()).collect()
        },
    );
    // 4 groups of 16-byte loads per step, then the remainder's group: 5 copies of 2 loads.
    count(TRIAD, "triad", "load.f32x4", 10);
}

const MASKED: &str = "
kernel void masked(global const int *a, global int *out) {
    int i = get_global_id(0);
    for (int r = 0; r < 1; r++) {
        int v = a[i];
        /* A mask test, not `%`: a division runs per lane, which keeps one group. */
        if ((v & 3) == 0) return;
        if (v > 10) out[i] = v * 2; else out[i] = v - 7;
    }
}";

#[test]
fn divergent_rows_with_return_run_in_groups() {
    // Some steps where every lane of a group returns, some where none does.
    let input = |n: usize| {
        let a = (0..n as u32).map(|i| if i % 16 < 4 { 4 * i } else { i * 7 % 23 });
        vec![a.collect()]
    };
    check((MASKED, "masked"), &input, (&[], 0xdead), &|_, ins| {
        ins[0]
            .iter()
            .map(|&v| match v as i32 {
                v if v & 3 == 0 => 0xdead,
                v if v > 10 => (v * 2) as u32,
                v => (v - 7) as u32,
            })
            .collect()
    });
    // Its step of one group is 270 instructions (the masked stores' per-lane fallbacks):
    // the build budget gives it 2 groups (3 × 270 ≤ 1024), then the remainder's group.
    count(MASKED, "masked", "load.i32x4", 3);
}

const COLUMN_SUM: &str = "
kernel void colsum(global const float *m, global float *out, int n) {
    int col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc += m[k * get_global_size(0) + col] * (k + 1);
    out[col] = acc;
}";

#[test]
fn uniform_loops_run_the_groups_in_one_iteration() {
    let n = 9;
    let input = |global: usize| vec![bits(&floats(global * n, 3))];
    check(
        (COLUMN_SUM, "colsum"),
        &input,
        (&[n as u64], 0),
        &|global, ins| {
            (0..global)
                .map(|col| {
                    let mut acc = 0.0f32;
                    for k in 0..n {
                        acc += f32::from_bits(ins[0][k * global + col]) * (k + 1) as f32;
                    }
                    acc.to_bits()
                })
                .collect()
        },
    );
    // One loop per copy of the row (the step of 4 groups, the remainder's group), and in
    // the first, 4 loads per iteration: 5 loads in 2 loops.
    count(COLUMN_SUM, "colsum", "load.f32x4", 5);
}

const HALVE: &str = "
kernel void halve(global const float *a, global int *out) {
    int i = get_global_id(0);
    float v = a[i];
    int n = 0;
    while (v > 1.0f) {
        v *= 0.5f;
        n++;
        if (n == 7) break;
        if (v < 3.0f) continue;
        n += 10;
    }
    int m = 0;
    do { m += 2; } while (m < i % 5);
    out[i] = n * 100 + m;
}";

#[test]
fn varying_loops_run_every_group_until_all_lanes_leave() {
    // Trip counts from 0 to 7, different in each lane and group.
    let input = |global: usize| vec![bits(&floats(global, 4))];
    check((HALVE, "halve"), &input, (&[], 0), &|global, ins| {
        (0..global)
            .map(|i| {
                let (mut v, mut n) = (f32::from_bits(ins[0][i]), 0i32);
                while v > 1.0 {
                    v *= 0.5;
                    n += 1;
                    if n == 7 {
                        break;
                    }
                    if v < 3.0 {
                        continue;
                    }
                    n += 10;
                }
                let mut m = 0;
                loop {
                    m += 2;
                    if m >= i as i32 % 5 {
                        break;
                    }
                }
                (n * 100 + m) as u32
            })
            .collect()
    });
    // v, n and the loop's mask: 3 registers per group, 4 groups (`unroll.rs`).
    count(HALVE, "halve", "load.f32x4", 5);
}
