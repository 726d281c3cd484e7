//! Barriers the work-group planner cannot split around run as resumable work-item functions
//! (`codegen/func/resumable.rs`); helpers with barriers called inside expressions or
//! returning early are inlined (`passes/hoist.rs`, `passes/inline.rs`). Each kernel here
//! exchanges values between work-items through local memory at its barriers, so a barrier
//! that did not hold the whole group would show as a wrong value.

mod common;

use common::{compile, run_1d};

/// Runs the one kernel of `source` over `global` items in groups of `local`, with an int
/// output (one per item) and an int argument.
fn run(source: &str, global: usize, local: usize, arg: i32) -> Vec<i32> {
    let kernels = compile(source);
    let mut out = vec![i32::MIN; global];
    let kernel = kernels.last().expect("one kernel");
    run_1d(
        kernel,
        global,
        local,
        &[out.as_mut_ptr() as u64, arg as u32 as u64],
        4 * local,
    );
    out
}

/// Host model of `rounds` rounds of `acc += acc of the next item (cyclically in the group)`.
fn neighbour_sums(
    global: usize,
    local: usize,
    rounds: usize,
    start: impl Fn(usize) -> i32,
) -> Vec<i32> {
    let mut acc: Vec<i32> = (0..global).map(&start).collect();
    for _ in 0..rounds {
        let before = acc.clone();
        for (i, a) in acc.iter_mut().enumerate() {
            let base = i / local * local;
            *a += before[base + (i - base + 1) % local];
        }
    }
    acc
}

#[test]
fn a_barrier_inside_a_loop_made_of_goto() {
    let source = "kernel void k(global int *out, int rounds) {
        local int t[64];
        int lid = get_local_id(0), n = get_local_size(0);
        int acc = get_global_id(0) * 3 + 1;
        int round = 0;
    again:
        t[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[(lid + 1) % n];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (++round < rounds) goto again;
        out[get_global_id(0)] = acc;
    }";
    for (global, local) in [(16, 8), (18, 6), (7, 7), (5, 1)] {
        let expected = neighbour_sums(global, local, 3, |i| i as i32 * 3 + 1);
        assert_eq!(run(source, global, local, 3), expected, "{global}/{local}");
    }
}

#[test]
fn a_goto_that_skips_a_barrier_for_the_whole_group_and_early_returns_after_the_last() {
    // The group skips the second exchange when `skip` is set (a uniform goto forward over
    // a barrier); odd items return before the final store, after the last barrier.
    let source = "kernel void k(global int *out, int skip) {
        local int t[64];
        int lid = get_local_id(0), n = get_local_size(0);
        int acc = lid + 10;
        t[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[(lid + 1) % n];
        if (skip) goto done;
        barrier(CLK_LOCAL_MEM_FENCE);
        t[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[(lid + 1) % n];
    done:
        if (lid & 1) return;
        out[get_global_id(0)] = acc;
    }";
    for skip in [0, 1] {
        let rounds = if skip == 1 { 1 } else { 2 };
        let expected: Vec<i32> = neighbour_sums(12, 6, rounds, |i| (i % 6) as i32 + 10)
            .into_iter()
            .enumerate()
            .map(|(i, v)| if i % 6 % 2 == 1 { i32::MIN } else { v })
            .collect();
        assert_eq!(run(source, 12, 6, skip), expected, "skip {skip}");
    }
}

#[test]
fn a_switch_whose_case_breaks_from_inside_an_if() {
    let source = "kernel void k(global int *out, int mode) {
        local int t[64];
        int lid = get_local_id(0), n = get_local_size(0);
        int acc = lid;
        switch (mode) {
        case 0:
            t[lid] = lid * 2;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (mode == 0) {
                acc = t[(lid + 1) % n];
                break;
            }
            acc = -1;
            break;
        case 1:
            t[lid] = lid * 5;
            barrier(CLK_LOCAL_MEM_FENCE);
            acc = t[n - 1 - lid];
        default:
            acc += 1000;
        }
        out[get_global_id(0)] = acc;
    }";
    let n = 5usize;
    let mode0: Vec<i32> = (0..n).map(|l| ((l + 1) % n) as i32 * 2).collect();
    let mode1: Vec<i32> = (0..n).map(|l| (n - 1 - l) as i32 * 5 + 1000).collect();
    let mode2: Vec<i32> = (0..n).map(|l| l as i32 + 1000).collect();
    assert_eq!(run(source, 5, 5, 0), mode0);
    assert_eq!(run(source, 5, 5, 1), mode1);
    assert_eq!(run(source, 5, 5, 2), mode2);
}

#[test]
fn continue_inside_a_switch_inside_a_loop_with_barriers() {
    // Rounds where `round % 3 == 1` are skipped by a `continue` that leaves a switch.
    let source = "kernel void k(global int *out, int rounds) {
        local int t[64];
        int lid = get_local_id(0), n = get_local_size(0);
        int acc = lid + 1;
        for (int round = 0; round < rounds; round++) {
            switch (round % 3) {
            case 1: continue;
            default: break;
            }
            t[lid] = acc;
            barrier(CLK_LOCAL_MEM_FENCE);
            acc += t[(lid + 1) % n];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = acc;
    }";
    // Rounds 0, 2, 3, 5, 6 of 0..7 exchange: 5 rounds.
    let expected = neighbour_sums(8, 4, 5, |i| (i % 4) as i32 + 1);
    assert_eq!(run(source, 8, 4, 7), expected);
}

#[test]
fn a_helper_with_a_barrier_called_inside_expressions() {
    let source = "int next_value(local int *t, int v) {
            int lid = get_local_id(0);
            t[lid] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            int r = t[(lid + 1) % get_local_size(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            return r;
        }
        kernel void k(global int *out, int unused) {
            local int t[64];
            int lid = get_local_id(0);
            int x = 2 * next_value(t, lid) + 1;
            x += next_value(t, next_value(t, x));
            out[get_global_id(0)] = x;
        }";
    let (global, local) = (12, 4);
    let next = |v: &[i32]| -> Vec<i32> {
        (0..v.len())
            .map(|i| v[i / local * local + (i % local + 1) % local])
            .collect()
    };
    let lid: Vec<i32> = (0..global).map(|i| (i % local) as i32).collect();
    let x: Vec<i32> = next(&lid).iter().map(|v| 2 * v + 1).collect();
    let twice = next(&next(&x));
    let expected: Vec<i32> = x.iter().zip(&twice).map(|(a, b)| a + b).collect();
    assert_eq!(run(source, global, local, 0), expected);
}

#[test]
fn a_while_condition_that_calls_a_helper_with_a_barrier() {
    // The group counts down together: each round every item reads its neighbour's value.
    let source = "int group_max(local int *t, int v) {
            int lid = get_local_id(0), n = get_local_size(0);
            t[lid] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            int m = t[0];
            for (int i = 1; i < n; i++) m = max(m, t[i]);
            barrier(CLK_LOCAL_MEM_FENCE);
            return m;
        }
        kernel void k(global int *out, int unused) {
            local int t[64];
            int v = get_global_id(0), rounds = 0;
            while (group_max(t, v) > 0) {
                v = v > 3 ? v - 3 : 0;
                rounds++;
            }
            out[get_global_id(0)] = rounds;
        }";
    // Group g's largest id is 6g + 5: ceil((6g + 5) / 3) rounds.
    let expected: Vec<i32> = (0..18usize)
        .map(|i| ((i / 6 * 6 + 5) as i32 + 2) / 3)
        .collect();
    assert_eq!(run(source, 18, 6, 0), expected);
}

#[test]
fn a_helper_with_a_barrier_that_returns_early() {
    let source = "int exchange(local int *t, int v, int mode) {
            int lid = get_local_id(0);
            t[lid] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (mode == 1) return -t[lid];
            int r = t[(lid + 1) % get_local_size(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (r > 2) return r * 100;
            return r;
        }
        kernel void k(global int *out, int mode) {
            local int t[64];
            out[get_global_id(0)] = exchange(t, get_local_id(0), mode);
        }";
    assert_eq!(run(source, 4, 4, 1), [0, -1, -2, -3]);
    assert_eq!(run(source, 4, 4, 0), [1, 2, 300, 0]);
}

#[test]
fn a_kernel_calling_a_kernel_that_declares_local_variables() {
    // The called kernel's `__local` array belongs to the calling kernel's work-group.
    let source = "kernel void fill(global int *out, int v) {
            local int scratch[4];
            int lid = get_local_id(0);
            scratch[lid % 4] = v + lid;
            out[get_global_id(0)] = scratch[lid % 4] * 2;
        }
        kernel void k(global int *out, int v) {
            fill(out, v + 1);
        }";
    assert_eq!(run(source, 8, 4, 10), [22, 24, 26, 28, 22, 24, 26, 28]);
}

/// A helper that returns the value of the next item in the group (with two barriers).
const NEXT_OF: &str = "int next_of(local int *t, int v) {
        int lid = get_local_id(0);
        t[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        int r = t[(lid + 1) % get_local_size(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        return r;
    }
    void bump(local int *t, int *v) { *v += next_of(t, *v); }
";

/// `next_of` on the host: each item's value becomes its group neighbour's.
fn next_of(values: &[i32], local: usize) -> Vec<i32> {
    (0..values.len())
        .map(|i| values[i / local * local + (i % local + 1) % local])
        .collect()
}

#[test]
fn helpers_with_barriers_called_on_the_right_of_logical_operators_and_inside_conditionals() {
    // `c` is uniform (a kernel argument), so the group takes each call or skips it as one.
    let source = format!(
        "{NEXT_OF}
        kernel void k(global int *out, int c) {{
            local int t[64];
            int lid = get_local_id(0);
            int a = c && next_of(t, lid + 1);
            int b = c || next_of(t, lid);
            int d = c > 1 ? next_of(t, 10 * lid) : -next_of(t, lid);
            int e = (a += 100, next_of(t, a + lid));
            c ? bump(t, &e) : (void)0;
            (void)(c > 1 ? bump(t, &e) : bump(t, &e));
            out[get_global_id(0)] = a + 1000 * b + 10000 * d + 100000 * e;
        }}"
    );
    let (global, local) = (8, 4);
    for c in [0, 1, 2] {
        let lid: Vec<i32> = (0..global).map(|i| (i % local) as i32).collect();
        let a: Vec<i32> = if c != 0 {
            next_of(&lid.iter().map(|l| l + 1).collect::<Vec<_>>(), local)
                .iter()
                .map(|v| (*v != 0) as i32)
                .collect()
        } else {
            vec![0; global]
        };
        let b: Vec<i32> = if c != 0 {
            vec![1; global]
        } else {
            next_of(&lid, local)
                .iter()
                .map(|v| (*v != 0) as i32)
                .collect()
        };
        let d: Vec<i32> = if c > 1 {
            next_of(&lid.iter().map(|l| 10 * l).collect::<Vec<_>>(), local)
        } else {
            next_of(&lid, local).iter().map(|v| -v).collect()
        };
        let a: Vec<i32> = a.iter().map(|v| v + 100).collect();
        let mut e = next_of(
            &a.iter().zip(&lid).map(|(a, l)| a + l).collect::<Vec<_>>(),
            local,
        );
        let bump = |e: Vec<i32>| -> Vec<i32> {
            let n = next_of(&e, local);
            e.iter().zip(&n).map(|(x, y)| x + y).collect()
        };
        if c != 0 {
            e = bump(e);
        }
        e = bump(e);
        let expected: Vec<i32> = (0..global)
            .map(|i| a[i] + 1000 * b[i] + 10000 * d[i] + 100000 * e[i])
            .collect();
        assert_eq!(run(&source, global, local, c), expected, "c = {c}");
    }
}

#[test]
fn a_for_step_and_a_do_while_condition_that_call_helpers_with_barriers() {
    // The step exchanges values; `continue` must still run it, `break` must skip it.
    let source = format!(
        "{NEXT_OF}
        kernel void k(global int *out, int rounds) {{
            local int t[64];
            int lid = get_local_id(0);
            int v = lid + 1, i, steps = 0;
            for (i = 0; i < rounds; i++, v = next_of(t, v) + i) {{
                steps++;
                if (i == 1) continue;
                if (i == rounds - 2) break;
                v *= 2;
            }}
            int w = lid, tries = 0;
            do {{
                tries++;
                if (tries == 2) continue;
                w += 1;
            }} while (next_of(t, 3 * tries) < 8);
            out[get_global_id(0)] = v + 1000 * steps + 100000 * i + 10000000 * tries + 100 * w;
        }}"
    );
    let (global, local) = (6, 3);
    let rounds = 5;
    let lid: Vec<i32> = (0..global).map(|i| (i % local) as i32).collect();
    let mut v: Vec<i32> = lid.iter().map(|l| l + 1).collect();
    let (mut i, mut steps) = (0, 0);
    while i < rounds {
        steps += 1;
        if i != 1 {
            if i == rounds - 2 {
                break;
            }
            v = v.iter().map(|x| 2 * x).collect();
        }
        i += 1;
        v = next_of(&v, local).iter().map(|x| x + i).collect();
    }
    let mut w = lid.clone();
    let mut tries = 0;
    loop {
        tries += 1;
        if tries != 2 {
            w = w.iter().map(|x| x + 1).collect();
        }
        // Every item passes the same value: the condition is uniform, as it must be.
        if 3 * tries >= 8 {
            break;
        }
    }
    let expected: Vec<i32> = (0..global)
        .map(|k| v[k] + 1000 * steps + 100000 * i + 10000000 * tries + 100 * w[k])
        .collect();
    assert_eq!(run(&source, global, local, rounds), expected);
}
