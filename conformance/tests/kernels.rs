//! Whole parallel algorithms (the kind of kernels applications run): scans, sorts, tiled
//! transposes and matrix products, an n-body step and reductions, built through the loader
//! and checked against the same computation on the host, at several global and local sizes
//! (non-powers of two where the algorithm allows them, 2D ranges where they are natural).
//!
//! Most of these kernels exchange data through `__local` memory and order it with
//! `barrier(CLK_LOCAL_MEM_FENCE)` inside loops and work-group-uniform `if`s, so they check
//! that a work-group's items really run in lock step at each barrier and that each item's
//! private state survives it. Integer kernels are checked exactly; floating-point ones
//! within a tolerance derived in their comments.

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

/// The bit patterns of floats (so that NaN compares, and -0 differs from 0).
fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The unit roundoff of single precision, 2^-24: a correctly rounded operation's result is
/// within a relative `U` of the exact value.
const U: f64 = f32::EPSILON as f64 / 2.0;

// Scans

#[test]
fn blelloch_exclusive_scan_within_each_work_group() {
    // The work-efficient scan (Blelloch 1990, as in GPU Gems 3 ch. 39): a group of L items
    // scans its 2L values in local memory, two per item. The up-sweep builds partial sums
    // in a balanced tree (log2(2L) levels, a barrier after each); the root, the group's
    // total, is saved and cleared; the down-sweep swaps and adds back down the tree. Both
    // sweeps are loops whose trip count depends only on the local size, with a barrier in
    // the body and an `offset` that each item carries, in private memory, from one
    // iteration (and from one loop) to the next. The result is the exclusive prefix sum of
    // each group's slice, exact in int.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void scan(global const int *in, global int *out, global int *totals,\n\
         \x20                local int *t) {\n\
         \x20 size_t l = get_local_id(0), n = 2 * get_local_size(0);\n\
         \x20 size_t base = get_group_id(0) * n;\n\
         \x20 t[2 * l] = in[base + 2 * l];\n\
         \x20 t[2 * l + 1] = in[base + 2 * l + 1];\n\
         \x20 size_t offset = 1;\n\
         \x20 for (size_t d = n >> 1; d > 0; d >>= 1) {\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   if (l < d) {\n\
         \x20     size_t ai = offset * (2 * l + 1) - 1, bi = offset * (2 * l + 2) - 1;\n\
         \x20     t[bi] += t[ai];\n\
         \x20   }\n\
         \x20   offset <<= 1;\n\
         \x20 }\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 if (l == 0) {\n\
         \x20   totals[get_group_id(0)] = t[n - 1];\n\
         \x20   t[n - 1] = 0;\n\
         \x20 }\n\
         \x20 for (size_t d = 1; d < n; d <<= 1) {\n\
         \x20   offset >>= 1;\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   if (l < d) {\n\
         \x20     size_t ai = offset * (2 * l + 1) - 1, bi = offset * (2 * l + 2) - 1;\n\
         \x20     int x = t[ai];\n\
         \x20     t[ai] = t[bi];\n\
         \x20     t[bi] += x;\n\
         \x20   }\n\
         \x20 }\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 out[base + 2 * l] = t[2 * l];\n\
         \x20 out[base + 2 * l + 1] = t[2 * l + 1];\n\
         }\n",
        c"scan",
        c"",
    );
    let mut rng = Rng(0x5ca9);
    for (local, groups) in [
        (1usize, 5usize),
        (2, 3),
        (4, 7),
        (8, 1),
        (16, 6),
        (32, 3),
        (64, 5),
        (128, 2),
        (256, 3),
    ] {
        let n = 2 * local * groups;
        let input = rng.ints(n, -1000, 1000);
        let (bi, bo, bt) = (
            fx.buffer(&input),
            fx.filled(i32::MIN, n),
            fx.filled(i32::MIN, groups),
        );
        k.mem(0, &bi)
            .mem(1, &bo)
            .mem(2, &bt)
            .local(3, 2 * local * 4);
        fx.run(&k, None, &[local * groups], Some(&[local]));
        let mut expected = Vec::with_capacity(n);
        let mut totals = Vec::with_capacity(groups);
        for slice in input.chunks(2 * local) {
            let mut sum = 0;
            for &v in slice {
                expected.push(sum);
                sum += v;
            }
            totals.push(sum);
        }
        let what = format!("local {local}, {groups} groups");
        assert_same(&fx.read::<i32>(&bo, n), &expected, &format!("scan {what}"));
        assert_same(
            &fx.read::<i32>(&bt, groups),
            &totals,
            &format!("totals {what}"),
        );
    }
}

// Sorts

/// One compare-and-exchange step of a bitonic sorting network, shared by both sorts: item
/// `i` of `n / 2` compares the pair (`lo`, `lo + j`) of pass `j` of stage `k`, where `lo`
/// is `i` with a zero bit inserted at `j`'s position; the pair is put in ascending order
/// when bit `k` of `lo` is clear and in descending order when it is set, so each stage
/// merges bitonic runs of `k` values into sorted runs alternating in direction, and the
/// last stage (`k` = `n`) sorts everything ascending.
const BITONIC_STEP: &str = "#define STEP(t, i, k, j) do {\\\n\
     \x20 uint lo_ = (((i) & ~((j) - 1)) << 1) | ((i) & ((j) - 1)), hi_ = lo_ + (j);\\\n\
     \x20 bool up_ = (lo_ & (k)) == 0;\\\n\
     \x20 int x_ = (t)[lo_], y_ = (t)[hi_];\\\n\
     \x20 if ((x_ > y_) == up_) { (t)[lo_] = y_; (t)[hi_] = x_; }\\\n\
     } while (0)\n";

/// Values to sort: random ints over the whole range, with repeats and the extremes.
fn sort_input(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n)
        .map(|i| match i % 11 {
            0 => i32::MIN,
            1 => i32::MAX,
            2..=4 => rng.int(-3, 3),
            _ => rng.int(i32::MIN, i32::MAX),
        })
        .collect()
}

#[test]
fn bitonic_sort_in_global_memory_one_launch_per_pass() {
    // The multi-pass bitonic sort: for n = 2^m values, stage k = 2, 4, .., n and pass
    // j = k/2, .., 1 is one launch of n/2 work-items, each ordering one pair in place in
    // global memory. An in-order queue runs the launches one after the other, each seeing
    // all the stores of the one before (m(m+1)/2 launches: 136 for n = 65536). The result
    // must be the host's sort, exactly.
    let fx = Fixture::new();
    let k = fx.kernel(
        &format!(
            "{BITONIC_STEP}\
             kernel void bitonic(global int *a, uint k, uint j) {{\n\
             \x20 uint i = get_global_id(0);\n\
             \x20 STEP(a, i, k, j);\n\
             }}\n"
        ),
        c"bitonic",
        c"",
    );
    let mut rng = Rng(0xb170);
    for (n, local) in [
        (2usize, None),
        (16, Some(1usize)),
        (1024, Some(8)),
        (1024, None),
        (8192, Some(64)),
        (65536, Some(256)),
        (65536, None),
    ] {
        let input = sort_input(&mut rng, n);
        let buffer = fx.buffer(&input);
        k.mem(0, &buffer);
        let mut stage = 2u32;
        while stage as usize <= n {
            let mut pass = stage / 2;
            while pass > 0 {
                k.arg(1, stage).arg(2, pass);
                fx.enqueue(&k, None, &[n / 2], local.as_ref().map(std::slice::from_ref));
                pass /= 2;
            }
            stage *= 2;
        }
        assert_eq!(api().finish(fx.queue), CL_SUCCESS);
        let mut expected = input.clone();
        expected.sort_unstable();
        assert_same(
            &fx.read::<i32>(&buffer, n),
            &expected,
            &format!("sort of {n} values, local {local:?}"),
        );
    }
}

#[test]
fn bitonic_sort_in_local_memory_within_each_work_group() {
    // The whole bitonic network in one launch: a group of L items copies its 2L values to
    // local memory and runs every (stage, pass) in two nested loops, with a barrier after
    // each pass; the trip counts depend only on the local size, so every item of the group
    // reaches each barrier the same number of times. Each group's slice comes back sorted,
    // exactly as the host sorts it.
    let fx = Fixture::new();
    let k = fx.kernel(
        &format!(
            "{BITONIC_STEP}\
             kernel void bitonic_local(global int *a, local int *t) {{\n\
             \x20 uint l = get_local_id(0), w = get_local_size(0), n = 2 * w;\n\
             \x20 global int *slice = a + get_group_id(0) * n;\n\
             \x20 t[l] = slice[l];\n\
             \x20 t[l + w] = slice[l + w];\n\
             \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
             \x20 for (uint k = 2; k <= n; k <<= 1) {{\n\
             \x20   for (uint j = k >> 1; j > 0; j >>= 1) {{\n\
             \x20     STEP(t, l, k, j);\n\
             \x20     barrier(CLK_LOCAL_MEM_FENCE);\n\
             \x20   }}\n\
             \x20 }}\n\
             \x20 slice[l] = t[l];\n\
             \x20 slice[l + w] = t[l + w];\n\
             }}\n"
        ),
        c"bitonic_local",
        c"",
    );
    let mut rng = Rng(0x50e7);
    for (local, groups) in [
        (1usize, 3usize),
        (2, 5),
        (8, 4),
        (32, 3),
        (64, 7),
        (128, 2),
        (256, 4),
        (512, 2),
    ] {
        let n = 2 * local * groups;
        let input = sort_input(&mut rng, n);
        let buffer = fx.buffer(&input);
        k.mem(0, &buffer).local(1, 2 * local * 4);
        fx.run(&k, None, &[local * groups], Some(&[local]));
        let mut expected = input.clone();
        for slice in expected.chunks_mut(2 * local) {
            slice.sort_unstable();
        }
        assert_same(
            &fx.read::<i32>(&buffer, n),
            &expected,
            &format!("local {local}, {groups} groups"),
        );
    }
}

// Matrix transpose and product

#[test]
fn transpose_through_a_padded_local_tile() {
    // The classic coalesced transpose: a T x T group (a 2D range) loads a tile of the
    // h x w input row by row into `local float tile[T][T + 1]` (the padding column keeps
    // the column reads of a GPU off a single bank), waits at a barrier, and writes the
    // tile's columns as rows of the w x h output, so each item stores a value another item
    // loaded. Ranges are rounded up to whole tiles; items past the edge load and store
    // nothing. A copy is exact: the output's bits are the input's.
    let fx = Fixture::new();
    let source = "kernel void transpose(global const float *in, global float *out, int w, int h) {\n\
         \x20 local float tile[T][T + 1];\n\
         \x20 int lx = get_local_id(0), ly = get_local_id(1);\n\
         \x20 int bx = get_group_id(0) * T, by = get_group_id(1) * T;\n\
         \x20 if (bx + lx < w && by + ly < h) tile[ly][lx] = in[(by + ly) * w + bx + lx];\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 if (by + lx < h && bx + ly < w) out[(bx + ly) * h + by + lx] = tile[lx][ly];\n\
         }\n";
    let mut rng = Rng(0x7a05);
    for (tile, options) in [(16usize, c"-D T=16"), (4, c"-DT=4"), (1, c"-D T=1")] {
        let k = fx.kernel(source, c"transpose", options);
        for (w, h) in [(48usize, 80usize), (256, 256), (80, 48), (37, 23), (1, 19)] {
            let input = rng.floats(w * h, -1e6, 1e6);
            let (bi, bo) = (fx.buffer(&input), fx.filled(f32::NAN, w * h));
            k.mem(0, &bi).mem(1, &bo).arg(2, w as i32).arg(3, h as i32);
            let round = |x: usize| x.div_ceil(tile) * tile;
            fx.run(&k, None, &[round(w), round(h)], Some(&[tile, tile]));
            let expected: Vec<f32> = (0..w * h).map(|i| input[(i % h) * w + i / h]).collect();
            assert_same(
                &bits(&fx.read::<f32>(&bo, w * h)),
                &bits(&expected),
                &format!("{w} x {h}, tile {tile}"),
            );
        }
    }
}

#[test]
fn tiled_sgemm_matches_the_host_within_tolerance() {
    // C = A B with A m x kk, B kk x n, row-major: a TS x TS group computes a TS x TS block
    // of C, walking over kk a tile at a time; each item loads one value of A's and one of
    // B's tile into local memory (zero past the edges, so sizes need not be multiples of
    // TS), a barrier, TS multiply-adds from local memory, a barrier before the tiles are
    // overwritten. The barriers sit in a loop whose trip count is a kernel argument's.
    //
    // Tolerance: each C[r][c] is a sum of kk products accumulated in single precision in
    // some order (the implementation may fuse a multiply and an add). The classic bound for
    // a recursive sum of products (Higham, Accuracy and Stability, §3.1) is
    // |computed - exact| <= gamma_kk * sum_k |A[r][k]| |B[k][c]|, gamma_kk = kk u / (1 - kk u),
    // u = 2^-24; fusing only removes roundings, and the padding's zero products add
    // exactly. The test allows kk * 2^-23 * sum |a||b|, twice gamma_kk, against a
    // double-precision host result (exact to far below this).
    let fx = Fixture::new();
    let source = "kernel void sgemm(int m, int n, int kk, global const float *a,\n\
         \x20                 global const float *b, global float *c) {\n\
         \x20 local float at[TS][TS], bt[TS][TS];\n\
         \x20 int lc = get_local_id(0), lr = get_local_id(1);\n\
         \x20 int col = get_group_id(0) * TS + lc, row = get_group_id(1) * TS + lr;\n\
         \x20 float acc = 0.0f;\n\
         \x20 int tiles = (kk + TS - 1) / TS;\n\
         \x20 for (int t = 0; t < tiles; t++) {\n\
         \x20   int ac = t * TS + lc, br = t * TS + lr;\n\
         \x20   at[lr][lc] = row < m && ac < kk ? a[row * kk + ac] : 0.0f;\n\
         \x20   bt[lr][lc] = br < kk && col < n ? b[br * n + col] : 0.0f;\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   for (int k = 0; k < TS; k++) acc += at[lr][k] * bt[k][lc];\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 }\n\
         \x20 if (row < m && col < n) c[row * n + col] = acc;\n\
         }\n";
    let mut rng = Rng(0x59e4);
    for (ts, options) in [(16usize, c"-D TS=16"), (8, c"-D TS=8")] {
        let k = fx.kernel(source, c"sgemm", options);
        for (m, n, kk) in [
            (64usize, 64usize, 64usize),
            (96, 48, 80),
            (33, 47, 61),
            (16, 16, 1),
            (1, 100, 17),
        ] {
            let a = rng.floats(m * kk, -1.0, 1.0);
            let b = rng.floats(kk * n, -1.0, 1.0);
            let (ba, bb, bc) = (fx.buffer(&a), fx.buffer(&b), fx.filled(f32::NAN, m * n));
            k.arg(0, m as i32)
                .arg(1, n as i32)
                .arg(2, kk as i32)
                .mem(3, &ba)
                .mem(4, &bb)
                .mem(5, &bc);
            let round = |x: usize| x.div_ceil(ts) * ts;
            fx.run(&k, None, &[round(n), round(m)], Some(&[ts, ts]));
            let actual: Vec<f32> = fx.read(&bc, m * n);
            for row in 0..m {
                for col in 0..n {
                    let products = (0..kk).map(|k| a[row * kk + k] as f64 * b[k * n + col] as f64);
                    let exact: f64 = products.clone().sum();
                    let magnitude: f64 = products.map(f64::abs).sum();
                    let got = actual[row * n + col] as f64;
                    assert!(
                        (got - exact).abs() <= kk as f64 * 2.0 * U * magnitude,
                        "sgemm {m}x{n}x{kk} TS {ts}: C[{row}][{col}] = {got}, expected {exact} \
                         (sum of |a||b| {magnitude})"
                    );
                }
            }
        }
    }
}

// n-body

/// The host's n-body step in double precision from the single-precision inputs, with, per
/// component, the bound on the kernel's error derived in `nbody_step_matches_the_host`.
struct NbodyExpected {
    pos: Vec<[f64; 4]>,
    vel: Vec<[f64; 4]>,
    pos_tolerance: Vec<[f64; 3]>,
    vel_tolerance: Vec<[f64; 3]>,
}

fn nbody_host(pos: &[[f32; 4]], vel: &[[f32; 4]], dt: f32, eps2: f32) -> NbodyExpected {
    let n = pos.len();
    let mut expected = NbodyExpected {
        pos: Vec::with_capacity(n),
        vel: Vec::with_capacity(n),
        pos_tolerance: Vec::with_capacity(n),
        vel_tolerance: Vec::with_capacity(n),
    };
    let (dt, eps2) = (dt as f64, eps2 as f64);
    // Relative error of one term m_j d / (|d|^2 + eps2)^(3/2) of the force, to first order
    // in u (see the test's comment), and of the sum of n such terms.
    let term_error = 32.0 * U;
    let sum_error = term_error + n as f64 * U;
    for (p, v) in pos.iter().zip(vel) {
        let mut acc = [0f64; 3];
        let mut magnitude = [0f64; 3];
        for q in pos {
            let d: [f64; 3] = std::array::from_fn(|c| q[c] as f64 - p[c] as f64);
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            let s = q[3] as f64 / (r2 * r2.sqrt());
            for c in 0..3 {
                acc[c] += s * d[c];
                magnitude[c] += (s * d[c]).abs();
            }
        }
        let mut new_v = [0f64; 4];
        let mut new_p = [0f64; 4];
        let mut v_tol = [0f64; 3];
        let mut p_tol = [0f64; 3];
        for c in 0..3 {
            let acc_tol = sum_error * magnitude[c];
            new_v[c] = v[c] as f64 + acc[c] * dt;
            new_p[c] = p[c] as f64 + new_v[c] * dt;
            // v + a dt: the error carried by a, then one rounding of the product and one of
            // the sum (or one of a fused multiply-add), each relative to the operands' size;
            // the factor 1.01 covers the second-order terms the first-order bound leaves out.
            v_tol[c] = dt * acc_tol + 2.0 * U * (v[c].abs() as f64 + (acc[c] * dt).abs()) * 1.01;
            // p + v' dt likewise, carrying v's error.
            p_tol[c] = dt * v_tol[c] + 2.0 * U * (p[c].abs() as f64 + (new_v[c] * dt).abs()) * 1.01;
        }
        new_v[3] = 0.0;
        new_p[3] = p[3] as f64;
        expected.pos.push(new_p);
        expected.vel.push(new_v);
        expected.pos_tolerance.push(p_tol);
        expected.vel_tolerance.push(v_tol);
    }
    expected
}

#[test]
fn nbody_step_matches_the_host() {
    // One leapfrog-like step of a softened gravitational n-body system (as in GPU Gems 3
    // ch. 31): each item reads its body (float4 position, mass in w), walks over all bodies
    // a tile of L at a time (each item copies one body into local memory, a barrier, L
    // interactions from local memory, a barrier), accumulates
    // a = sum_j m_j (p_j - p) / (|p_j - p|^2 + eps2)^(3/2), and writes v' = v + a dt and
    // p' = p + v' dt. The inverse square root is `rsqrt` or `1.0f / sqrt` (-D USE_SQRT).
    //
    // Tolerance, per component, to first order in u = 2^-24 (OpenCL 1.2 §7.4: rsqrt is
    // within 2 ulp, sqrt 3 ulp, division 2.5 ulp; +, -, * are correctly rounded; a
    // multiply-add may be fused): d = p_j - p is within u of the exact difference of the
    // inputs in each component; r2, a sum of positive terms, within 4u; rsqrt(r2) within
    // 2u (propagated) + 4u (2 ulp <= 4u), or 1/sqrt within 2u + 6u + 5u; its cube within
    // 3 times that plus 2u; m * inv3 * d within that plus 3u: under 32u in all. Summing n
    // terms of either sign in any order adds at most n u of the sum of their magnitudes.
    // The velocity and position updates add their own roundings (see `nbody_host`).
    let fx = Fixture::new();
    let source = "kernel void nbody(global const float4 *pos, global const float4 *vel,\n\
         \x20                 global float4 *new_pos, global float4 *new_vel,\n\
         \x20                 float dt, float eps2, local float4 *tile) {\n\
         \x20 size_t i = get_global_id(0), l = get_local_id(0), tl = get_local_size(0);\n\
         \x20 size_t n = get_global_size(0);\n\
         \x20 float4 p = pos[i];\n\
         \x20 float3 a = (float3)(0.0f);\n\
         \x20 for (size_t base = 0; base < n; base += tl) {\n\
         \x20   tile[l] = pos[base + l];\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   for (size_t j = 0; j < tl; j++) {\n\
         \x20     float4 q = tile[j];\n\
         \x20     float3 d = q.xyz - p.xyz;\n\
         \x20     float r2 = dot(d, d) + eps2;\n\
         #ifdef USE_SQRT\n\
         \x20     float inv = 1.0f / sqrt(r2);\n\
         #else\n\
         \x20     float inv = rsqrt(r2);\n\
         #endif\n\
         \x20     a += q.w * (inv * inv * inv) * d;\n\
         \x20   }\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 }\n\
         \x20 float4 v = vel[i];\n\
         \x20 v.xyz += a * dt;\n\
         \x20 new_vel[i] = (float4)(v.xyz, 0.0f);\n\
         \x20 new_pos[i] = (float4)(p.xyz + v.xyz * dt, p.w);\n\
         }\n";
    let mut rng = Rng(0x9b0d);
    let (dt, eps2) = (0.01f32, 0.01f32);
    for options in [c"", c"-D USE_SQRT"] {
        let k = fx.kernel(source, c"nbody", options);
        for (n, local) in [
            (1024usize, 64usize),
            (768, 48),
            (300, 100),
            (257, 1),
            (7, 7),
        ] {
            let pos: Vec<[f32; 4]> = (0..n)
                .map(|_| {
                    let [x, y, z] = [0; 3].map(|_| rng.float(-1.0, 1.0));
                    [x, y, z, rng.float(0.1, 1.0)]
                })
                .collect();
            let vel: Vec<[f32; 4]> = (0..n)
                .map(|_| {
                    let [x, y, z] = [0; 3].map(|_| rng.float(-0.5, 0.5));
                    [x, y, z, 0.0]
                })
                .collect();
            let (bp, bv) = (fx.buffer(&pos), fx.buffer(&vel));
            let (bnp, bnv) = (fx.filled([f32::NAN; 4], n), fx.filled([f32::NAN; 4], n));
            k.mem(0, &bp)
                .mem(1, &bv)
                .mem(2, &bnp)
                .mem(3, &bnv)
                .arg(4, dt)
                .arg(5, eps2)
                .local(6, local * 16);
            fx.run(&k, None, &[n], Some(&[local]));
            let new_pos: Vec<[f32; 4]> = fx.read(&bnp, n);
            let new_vel: Vec<[f32; 4]> = fx.read(&bnv, n);
            let expected = nbody_host(&pos, &vel, dt, eps2);
            let what = format!("n {n}, local {local}, options {options:?}");
            for i in 0..n {
                for c in 0..3 {
                    let (got, exact, tol) = (
                        new_vel[i][c] as f64,
                        expected.vel[i][c],
                        expected.vel_tolerance[i][c],
                    );
                    assert!(
                        (got - exact).abs() <= tol,
                        "{what}: velocity {i}[{c}] = {got}, expected {exact} +- {tol}"
                    );
                    let (got, exact, tol) = (
                        new_pos[i][c] as f64,
                        expected.pos[i][c],
                        expected.pos_tolerance[i][c],
                    );
                    assert!(
                        (got - exact).abs() <= tol,
                        "{what}: position {i}[{c}] = {got}, expected {exact} +- {tol}"
                    );
                }
                assert_eq!(new_vel[i][3], 0.0, "{what}: velocity {i}.w");
                assert_eq!(new_pos[i][3], pos[i][3], "{what}: mass {i}");
            }
        }
    }
}

// Barriers in work-group-uniform control flow

#[test]
fn barrier_inside_a_work_group_uniform_if() {
    // §6.12.8: "If barrier is inside a conditional statement, then all work-items must
    // enter the conditional if any work-item enters the conditional statement and executes
    // the barrier." Here the condition depends on a kernel argument and on get_group_id(0),
    // so it is the same for every item of a group but differs between groups: with mode 0
    // odd groups reverse their values through local memory (two barriers in the `then`
    // branch) while even groups rotate them by two and double them (two barriers in the
    // `else` branch); mode 1 reverses in every group, mode 2 in none. After the `if`, every
    // group rotates its values by one through local memory once more. Exact in int.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void uniform_if(global const int *in, global int *out, int mode,\n\
         \x20                      local int *t) {\n\
         \x20 size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n\
         \x20 int v = in[g];\n\
         \x20 if (mode == 1 || (mode == 0 && get_group_id(0) % 2 == 1)) {\n\
         \x20   t[l] = v;\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   v = t[n - 1 - l];\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 } else {\n\
         \x20   t[l] = v;\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   v = 2 * t[(l + 2) % n];\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 }\n\
         \x20 t[l] = v;\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 out[g] = t[(l + 1) % n];\n\
         }\n",
        c"uniform_if",
        c"",
    );
    let mut rng = Rng(0x1f1f);
    for (local, groups) in [(1usize, 4usize), (7, 5), (64, 3), (100, 4), (256, 2)] {
        for mode in 0..3 {
            let n = local * groups;
            let input = rng.ints(n, -1 << 20, 1 << 20);
            let (bi, bo) = (fx.buffer(&input), fx.filled(i32::MIN, n));
            k.mem(0, &bi).mem(1, &bo).arg(2, mode).local(3, local * 4);
            fx.run(&k, None, &[n], Some(&[local]));
            let mut expected = Vec::with_capacity(n);
            for (group, slice) in input.chunks(local).enumerate() {
                let reverse = mode == 1 || (mode == 0 && group % 2 == 1);
                let middle: Vec<i32> = (0..local)
                    .map(|l| {
                        if reverse {
                            slice[local - 1 - l]
                        } else {
                            2 * slice[(l + 2) % local]
                        }
                    })
                    .collect();
                expected.extend((0..local).map(|l| middle[(l + 1) % local]));
            }
            assert_same(
                &fx.read::<i32>(&bo, n),
                &expected,
                &format!("mode {mode}, local {local}, {groups} groups"),
            );
        }
    }
}

#[test]
fn barrier_inside_an_if_inside_a_loop_whose_condition_varies_by_round_and_group() {
    // The same rule one level deeper: in round r of a loop (its trip count a kernel
    // argument), groups with (r + group id) % 3 == 0 exchange values through local memory
    // (between two barriers) while the others update their values privately, without a
    // barrier. So in one launch the groups take the barrier branch in different rounds, and
    // each item's private value must survive rounds spent in either branch. Exact, with
    // uint arithmetic (which wraps, as the host's `wrapping_*` do).
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void rounds(global uint *data, int rounds, local uint *t) {\n\
         \x20 size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n\
         \x20 size_t group = get_group_id(0);\n\
         \x20 uint v = data[g];\n\
         \x20 for (int r = 0; r < rounds; r++) {\n\
         \x20   if ((r + group) % 3 == 0) {\n\
         \x20     t[l] = v;\n\
         \x20     barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20     v += t[(l + r + 1) % n];\n\
         \x20     barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20   } else {\n\
         \x20     v = v * 3u + (uint)l;\n\
         \x20   }\n\
         \x20 }\n\
         \x20 data[g] = v;\n\
         }\n",
        c"rounds",
        c"",
    );
    let mut rng = Rng(0x3c3c);
    for (local, groups, rounds) in [
        (1usize, 3usize, 4i32),
        (5, 4, 7),
        (64, 3, 0),
        (64, 3, 1),
        (100, 5, 9),
        (256, 2, 6),
    ] {
        let n = local * groups;
        let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let buffer = fx.buffer(&input);
        k.mem(0, &buffer).arg(1, rounds).local(2, local * 4);
        fx.run(&k, None, &[n], Some(&[local]));
        let mut expected = input.clone();
        for (group, slice) in expected.chunks_mut(local).enumerate() {
            for r in 0..rounds as usize {
                if (r + group) % 3 == 0 {
                    let t = slice.to_vec();
                    for (l, v) in slice.iter_mut().enumerate() {
                        *v = v.wrapping_add(t[(l + r + 1) % local]);
                    }
                } else {
                    for (l, v) in slice.iter_mut().enumerate() {
                        *v = v.wrapping_mul(3).wrapping_add(l as u32);
                    }
                }
            }
        }
        assert_same(
            &fx.read::<u32>(&buffer, n),
            &expected,
            &format!("local {local}, {groups} groups, {rounds} rounds"),
        );
    }
}

// Reductions

#[test]
fn reduction_with_a_local_size_that_is_not_a_power_of_two() {
    // A tree reduction that does not need a power-of-two group: each item first sums, in
    // private memory, the inputs at its global id plus multiples of the global size (any
    // input length, the last pass partial), then the group halves its live count m with
    // ceil(m / 2) each round: items below floor(m / 2) add the value ceil(m / 2) above
    // them, and an odd middle value waits for the next round. The loop's trip count,
    // ceil(log2(L)), is uniform; a barrier ends each round. Exact in int (no overflow).
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void sum(global const int *in, uint len, global int *sums, local int *t) {\n\
         \x20 uint l = get_local_id(0);\n\
         \x20 int acc = 0;\n\
         \x20 for (uint i = get_global_id(0); i < len; i += get_global_size(0)) acc += in[i];\n\
         \x20 t[l] = acc;\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 for (uint m = get_local_size(0); m > 1; m = (m + 1) / 2) {\n\
         \x20   if (l < m / 2) t[l] += t[l + (m + 1) / 2];\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 }\n\
         \x20 if (l == 0) sums[get_group_id(0)] = t[0];\n\
         }\n",
        c"sum",
        c"",
    );
    let mut rng = Rng(0x0dd);
    for (len, local, groups) in [
        (4800usize, 48usize, 100usize),
        (10007, 48, 7),
        (1000, 100, 3),
        (99, 100, 2),
        (12345, 3, 33),
        (5, 1, 4),
        (77777, 250, 5),
        (4096, 1000, 1),
        (3000, 127, 4),
    ] {
        let input = rng.ints(len, -10000, 10000);
        let (bi, bs) = (fx.buffer(&input), fx.filled(i32::MIN, groups));
        let global = local * groups;
        k.mem(0, &bi)
            .arg(1, len as u32)
            .mem(2, &bs)
            .local(3, local * 4);
        fx.run(&k, None, &[global], Some(&[local]));
        let expected: Vec<i32> = (0..groups)
            .map(|group| {
                (group * local..(group + 1) * local)
                    .flat_map(|item| input.iter().skip(item).step_by(global))
                    .sum()
            })
            .collect();
        assert_eq!(
            expected.iter().sum::<i32>(),
            input.iter().sum::<i32>(),
            "the host's groups cover the input once"
        );
        assert_same(
            &fx.read::<i32>(&bs, groups),
            &expected,
            &format!("len {len}, local {local}, {groups} groups"),
        );
    }
}

// Async copies

#[test]
fn an_async_copy_is_done_once_by_each_group_of_a_3d_range() {
    // 6.12.10: "The async copy is performed by all work-items in a work-group": with 3D
    // work-groups each group copies its own chunk once (here the items of a group first
    // fill the local tile, then the group copies it out), and the copy in reads what the
    // items wrote to global memory before a barrier.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void cube(global int *in, global int *out, local int *t) {\n\
         \x20 size_t lx = get_local_size(0), ly = get_local_size(1), lz = get_local_size(2);\n\
         \x20 size_t n = lx * ly * lz;\n\
         \x20 size_t l = get_local_id(0) + lx * (get_local_id(1) + ly * get_local_id(2));\n\
         \x20 size_t g = get_group_id(0) + get_num_groups(0) * (get_group_id(1)\n\
         \x20     + get_num_groups(1) * get_group_id(2));\n\
         \x20 in[g * n + l] = (int)(g * 1000 + l);\n\
         \x20 barrier(CLK_GLOBAL_MEM_FENCE);\n\
         \x20 event_t e = async_work_group_copy(t, in + g * n, n, 0);\n\
         \x20 wait_group_events(1, &e);\n\
         \x20 int v = t[n - 1 - l] + 1;\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 t[l] = v;\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 e = async_work_group_copy(out + g * n, t, n, 0);\n\
         \x20 wait_group_events(1, &e);\n\
         }\n",
        c"cube",
        c"",
    );
    for (local, groups) in [([2usize, 3, 2], [2usize, 1, 3]), ([4, 1, 1], [1, 2, 2])] {
        let n: usize = local.iter().product();
        let total = n * groups.iter().product::<usize>();
        let input = fx.filled(-1i32, total);
        let out = fx.filled(i32::MIN, total);
        k.mem(0, &input).mem(1, &out).local(2, n * 4);
        let global: Vec<usize> = (0..3).map(|d| local[d] * groups[d]).collect();
        fx.run(&k, None, &global, Some(&local));
        // Item l of group g wrote g * 1000 + l; the tile comes back reversed, plus one.
        let expected: Vec<i32> = (0..total)
            .map(|i| ((i / n) * 1000 + (n - 1 - i % n) + 1) as i32)
            .collect();
        assert_same(
            &fx.read::<i32>(&out, total),
            &expected,
            &format!("local {local:?}, groups {groups:?}"),
        );
    }
}

#[test]
fn async_copies_move_a_group_s_tile_in_and_a_strided_column_out() {
    // 6.12.10: async_work_group_copy copies num_gentypes elements "from src to dst", the
    // event "should be zero" when not shared, and wait_group_events waits for it;
    // async_work_group_strided_copy to global memory writes element i of the local source
    // to dst[i * dst_stride]. Each group copies its tile of `in` to local memory (event 0,
    // the common idiom), every item doubles one element after the wait and a barrier, and
    // the group writes the tile back transposed-by-stride: out[g + i * groups].
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void tile(global const int *in, global int *out, local int *t, int chunk) {\n\
         \x20 size_t g = get_group_id(0), groups = get_num_groups(0);\n\
         \x20 event_t e = async_work_group_copy(t, in + g * chunk, chunk, 0);\n\
         \x20 wait_group_events(1, &e);\n\
         \x20 for (int i = get_local_id(0); i < chunk; i += get_local_size(0)) t[i] *= 2;\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 e = async_work_group_strided_copy(out + g, t, chunk, groups, 0);\n\
         \x20 wait_group_events(1, &e);\n\
         }\n",
        c"tile",
        c"",
    );
    for (local, groups, chunk) in [
        (1usize, 1usize, 1usize),
        (4, 3, 10),
        (16, 5, 7),
        (64, 8, 64),
    ] {
        let input: Vec<i32> = (0..(groups * chunk) as i32).map(|v| v * 3 - 7).collect();
        let bi = fx.buffer(&input);
        let out = fx.filled(i32::MIN, groups * chunk);
        k.mem(0, &bi)
            .mem(1, &out)
            .local(2, chunk * 4)
            .arg(3, chunk as i32);
        fx.run(&k, None, &[local * groups], Some(&[local]));
        let mut expected = vec![0; groups * chunk];
        for g in 0..groups {
            for i in 0..chunk {
                expected[g + i * groups] = 2 * input[g * chunk + i];
            }
        }
        assert_same(
            &fx.read::<i32>(&out, groups * chunk),
            &expected,
            &format!("local {local}, groups {groups}, chunk {chunk}"),
        );
    }
}

// Every work-item once

#[test]
fn every_work_item_runs_once_whether_or_not_the_vectorized_row_covers_the_row() {
    // A work-group runs each row of dimension 0 as the vectorized row function's steps of
    // 4 items, then the scalar row for the rest; where the steps cover the whole row (a
    // local size that is a multiple of 4) the scalar row is not called at all, and both
    // row loops test their bound at the end of each step. Each item counts itself in its
    // own slot (a second run of an item, or a missing one, shows) and writes its ids, in
    // 3D ranges with offsets, with and without a barrier (whose regions have rows of their
    // own), at local sizes whose rows are whole steps, partial ones, and single items.
    let fx = Fixture::new();
    let source = "kernel void ids(global uint *count, global uint *ids) {\n\
         \x20 size_t i = (get_global_id(2) - get_global_offset(2)) * get_global_size(1) * get_global_size(0)\n\
         \x20     + (get_global_id(1) - get_global_offset(1)) * get_global_size(0)\n\
         \x20     + (get_global_id(0) - get_global_offset(0));\n\
         \x20 atomic_inc(&count[i]);\n\
         #ifdef BARRIER\n\
         \x20 barrier(CLK_GLOBAL_MEM_FENCE);\n\
         #endif\n\
         \x20 ids[i] = (uint)(get_global_id(0) | get_global_id(1) << 8 | get_global_id(2) << 14\n\
         \x20     | get_local_id(0) << 18 | get_local_id(1) << 24 | get_local_id(2) << 28);\n\
         }\n";
    let global = [40usize, 6, 2];
    let offset = [3usize, 1, 2];
    for options in [c"", c"-D BARRIER"] {
        let k = fx.kernel(source, c"ids", options);
        for local in [
            [8, 3, 2],
            [40, 1, 1],
            [4, 6, 2],
            [20, 2, 1],
            [5, 3, 1],
            [10, 1, 2],
            [1, 6, 1],
        ] {
            let n = global.iter().product::<usize>();
            let (count, ids) = (fx.filled(0u32, n), fx.filled(u32::MAX, n));
            k.mem(0, &count).mem(1, &ids);
            fx.run(&k, Some(&offset), &global, Some(&local));
            let what = format!("local {local:?}, options {options:?}");
            assert_same(&fx.read::<u32>(&count, n), &vec![1u32; n], &what);
            let expected: Vec<u32> = (0..n)
                .map(|i| {
                    let (x, y, z) = (i % 40, i / 40 % 6, i / 240);
                    let (gx, gy, gz) = (x + offset[0], y + offset[1], z + offset[2]);
                    let (lx, ly, lz) = (x % local[0], y % local[1], z % local[2]);
                    (gx | gy << 8 | gz << 14 | lx << 18 | ly << 24 | lz << 28) as u32
                })
                .collect();
            assert_same(&fx.read::<u32>(&ids, n), &expected, &what);
        }
    }
}
