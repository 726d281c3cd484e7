//! Vectorized region rows of kernels with barriers (`codegen/simd/barrier_rows.rs`): every
//! kernel here runs vectorized and scalar (`CodegenOptions::scalar_only`, what
//! `CLIFT_VECTORIZE=0` does) over work-groups with local memory and per-item frames; the
//! outputs must be bit-identical and equal to the values computed here on the host.

use std::alloc::{Layout, alloc, dealloc};
use std::sync::Arc;

use clift_compiler::build::{BuildOptions, build};
use clift_compiler::codegen::CodegenOptions;
use clift_compiler::kernel::{Execution, KernelCode, MAX_ALIGN, ParamKind, WorkGroup};

fn kernel(source: &str, name: &str, scalar_only: bool) -> Arc<KernelCode> {
    let options = BuildOptions {
        codegen: CodegenOptions {
            scalar_only,
            ..CodegenOptions::default()
        },
        ..BuildOptions::default()
    };
    let built = match build("b.cl", source, &options) {
        Ok(b) => b,
        Err(log) => panic!("build failed:\n{log}"),
    };
    built
        .kernels
        .into_iter()
        .find(|k| k.name == name)
        .expect("the kernel")
}

/// A kernel argument.
#[derive(Clone, Copy)]
enum Arg {
    /// A buffer's address (`Buffers` index).
    Buffer(usize),
    /// A value of up to 8 bytes.
    Value(u64),
    /// A `__local` pointer to this many bytes.
    Local(usize),
}

/// Memory of `MAX_ALIGN` alignment, freed on drop.
struct Arena {
    ptr: *mut u8,
    layout: Layout,
}

impl Arena {
    fn new(bytes: usize) -> Arena {
        let layout = Layout::from_size_align(bytes.max(MAX_ALIGN), MAX_ALIGN).expect("a layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc(layout) };
        assert!(!ptr.is_null());
        // A pattern, not zeros: a kernel must not read what it did not write.
        // SAFETY: `ptr` holds `layout.size()` bytes.
        unsafe { std::ptr::write_bytes(ptr, 0xa5, layout.size()) };
        Arena { ptr, layout }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr, self.layout) };
    }
}

/// Runs `kernel` over the 3D range `global`/`local` with `args`, as the runtime does: the
/// group's local memory holds the kernel's `__local` variables, then its local arguments,
/// then one frame per work-item.
fn run(
    kernel: &KernelCode,
    global: [usize; 3],
    local: [usize; 3],
    args: &[Arg],
    bufs: &mut [Vec<u8>],
) {
    // Canaries after each buffer and after the group's memory: nothing writes past them.
    const CANARY: usize = 4096;
    let lengths: Vec<usize> = bufs.iter().map(Vec::len).collect();
    for b in bufs.iter_mut() {
        b.resize(b.len() + CANARY, 0x5a);
    }
    let mut block = vec![0u8; kernel.args_size.max(8)];
    let mut local_size = kernel.static_local_size.next_multiple_of(MAX_ALIGN);
    for (p, a) in kernel.params.iter().zip(args) {
        let (value, size) = match (*a, &p.kind) {
            (Arg::Buffer(i), _) => (bufs[i].as_mut_ptr() as u64, 8),
            (Arg::Value(v), ParamKind::Value { size }) => (v, *size),
            (Arg::Local(bytes), ParamKind::Local) => {
                let offset = local_size;
                local_size += bytes.next_multiple_of(MAX_ALIGN);
                (offset as u64, 8)
            }
            _ => panic!("argument kind"),
        };
        block[p.offset..p.offset + size].copy_from_slice(&value.to_ne_bytes()[..size]);
    }
    let items: usize = local.iter().product();
    let frames_offset = local_size.next_multiple_of(MAX_ALIGN);
    let used = frames_offset + kernel.frame_size * items;
    let arena = Arena::new(used + CANARY);
    let groups = [0, 1, 2].map(|d| global[d] / local[d]);
    let dims = if global[2] > 1 {
        3
    } else if global[1] > 1 {
        2
    } else {
        1
    };
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let group = WorkGroup {
                    work_dim: dims,
                    _pad: 0,
                    global_offset: [0; 3],
                    global_size: global.map(|v| v as u64),
                    local_size: local.map(|v| v as u64),
                    num_groups: groups.map(|v| v as u64),
                    group_id: [gx as u64, gy as u64, gz as u64],
                    local_memory: arena.ptr,
                    private_frames: arena.ptr.wrapping_add(frames_offset),
                    printf_buffer: std::ptr::null(),
                    watchdog: std::ptr::null(),
                    safe: std::ptr::null(),
                };
                // SAFETY: the argument block holds every parameter; the buffers and the
                // arena (local memory and frames, laid out as the runtime does) outlive the
                // call.
                unsafe { (kernel.entry)(block.as_ptr(), &group) };
            }
        }
    }
    // SAFETY: the arena holds `used + CANARY` bytes.
    let tail = unsafe { std::slice::from_raw_parts(arena.ptr.add(used), CANARY) };
    assert!(tail.iter().all(|&x| x == 0xa5), "a write past the frames");
    for (b, len) in bufs.iter_mut().zip(lengths) {
        assert!(b[len..].iter().all(|&x| x == 0x5a), "a write past a buffer");
        b.truncate(len);
    }
}

/// Runs kernel `name` of `source` both ways; `bufs` are the buffers' initial bytes and the
/// last one is the output. Checks that the kernel runs by regions where it has barriers,
/// vectorized, and returns
/// the output (the same both ways, bit for bit).
fn both(
    source: &str,
    name: &str,
    global: [usize; 3],
    local: [usize; 3],
    args: &[Arg],
    bufs: &[Vec<u8>],
) -> Vec<u8> {
    let mut outputs = Vec::new();
    for scalar_only in [true, false] {
        let k = kernel(source, name, scalar_only);
        let expected = if source.contains("barrier(") {
            Execution::BarrierRegions
        } else {
            Execution::WorkItemLoop
        };
        assert_eq!(k.execution, expected, "{name}");
        if !scalar_only {
            assert_eq!(k.vectorized, Ok(4), "{name}");
        }
        let mut b = bufs.to_vec();
        run(&k, global, local, args, &mut b);
        outputs.push(b.pop().expect("an output"));
    }
    assert!(
        outputs[0] == outputs[1],
        "{name}: vectorized and scalar differ"
    );
    outputs.pop().expect("two runs")
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}
fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_ne_bytes(c.try_into().expect("4 bytes")))
        .collect()
}
fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 2000) as f32 / 1000.0 - 1.0
        })
        .collect()
}

const SOURCE: &str = r#"
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
#define TILE 16
kernel void sgemm_tiled(global const float *a, global const float *b, int n, global float *c) {
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
kernel void branchy(local int *t, global int *out) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int v = lid * 3;
    if (lid % 3 == 0) v += 100; else t[lid] = -1;
    t[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    int w = t[(lid + 1) % n];
    if (w > 50) { w -= lid; } else if (lid & 1) { w = w * 2; }
    barrier(CLK_LOCAL_MEM_FENCE);
    t[lid] = w + v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < n - 2) out[get_global_id(0)] = t[n - 1 - lid] * 2 + v;
    else out[get_global_id(0)] = w;
}
kernel void grid3(local int *t, global int *out) {
    int x = get_local_id(0), y = get_local_id(1), z = get_local_id(2);
    int sx = get_local_size(0), sy = get_local_size(1);
    int l = (z * sy + y) * sx + x;
    t[l] = x * 100 + y * 10 + z;
    barrier(CLK_LOCAL_MEM_FENCE);
    int total = sx * sy * get_local_size(2);
    int g = get_global_id(0)
        + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));
    out[g] = t[total - 1 - l] + l * 1000;
}
kernel void rounds(local int *t, global int *out) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int acc = 0;
    int u = 1;
    for (int i = 0; i < 3; i++) {
        t[lid] = lid + i * u;
        for (int j = 0; j < 2; j++) u += j + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[(lid + 1) % n] * (i + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = acc * 7 + u;
}
"#;

/// The reduction's tree, in the kernel's order.
fn host_reduce(input: &[f32], group: usize) -> Vec<f32> {
    input
        .chunks(group)
        .map(|c| {
            let mut s = c.to_vec();
            let mut half = group / 2;
            while half > 0 {
                for i in 0..half {
                    s[i] += s[i + half];
                }
                half /= 2;
            }
            s[0]
        })
        .collect()
}

#[test]
fn a_reduction_in_local_memory() {
    for group in [256usize, 64, 8] {
        let n = 1024;
        let input = floats(n, 7);
        let out = both(
            SOURCE,
            "reduce",
            [n, 1, 1],
            [group, 1, 1],
            &[Arg::Buffer(0), Arg::Buffer(1), Arg::Local(group * 4)],
            &[bytes_f32(&input), vec![0; n / group * 4]],
        );
        let expect = host_reduce(&input, group);
        let got = f32s(&out);
        assert_eq!(
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            expect.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "group {group}"
        );
    }
}

#[test]
fn a_tiled_matrix_product() {
    let n = 48;
    let (a, b) = (floats(n * n, 1), floats(n * n, 2));
    let out = both(
        SOURCE,
        "sgemm_tiled",
        [n, n, 1],
        [16, 16, 1],
        &[
            Arg::Buffer(0),
            Arg::Buffer(1),
            Arg::Value(n as u64),
            Arg::Buffer(2),
        ],
        &[bytes_f32(&a), bytes_f32(&b), vec![0; n * n * 4]],
    );
    let got = f32s(&out);
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc += a[row * n + k] * b[k * n + col];
            }
            assert_eq!(
                got[row * n + col].to_bits(),
                acc.to_bits(),
                "c[{row}][{col}]"
            );
        }
    }
}

#[test]
fn varying_branches_between_barriers_and_values_live_across_them() {
    // Group sizes that are not a multiple of 4 leave a scalar remainder in each region.
    for group in [16usize, 13, 6, 3] {
        let n = group * 3;
        let out = both(
            SOURCE,
            "branchy",
            [n, 1, 1],
            [group, 1, 1],
            &[Arg::Local(group * 4), Arg::Buffer(0)],
            &[vec![0; n * 4]],
        );
        let got = i32s(&out);
        assert_eq!(got.len(), n);
        for (g, &value) in got.iter().enumerate() {
            let (lid, gs) = ((g % group) as i32, group as i32);
            let v_of = |l: i32| if l % 3 == 0 { l * 3 + 100 } else { l * 3 };
            let w_of = |l: i32| {
                let w = v_of((l + 1) % gs);
                if w > 50 {
                    w - l
                } else if l & 1 == 1 {
                    w * 2
                } else {
                    w
                }
            };
            let expect = if lid < gs - 2 {
                let m = gs - 1 - lid;
                (w_of(m) + v_of(m)) * 2 + v_of(lid)
            } else {
                w_of(lid)
            };
            assert_eq!(value, expect, "group {group}, item {g}");
        }
    }
}

#[test]
fn two_and_three_dimensional_groups() {
    for (global, local) in [([10, 6, 4], [5, 3, 2]), ([16, 4, 1], [8, 2, 1])] {
        let items: usize = global.iter().product();
        let per_group: usize = local.iter().product();
        let out = both(
            SOURCE,
            "grid3",
            global,
            local,
            &[Arg::Local(per_group * 4), Arg::Buffer(0)],
            &[vec![0; items * 4]],
        );
        let got = i32s(&out);
        for gz in 0..global[2] {
            for gy in 0..global[1] {
                for gx in 0..global[0] {
                    let (x, y, z) = (gx % local[0], gy % local[1], gz % local[2]);
                    let l = (z * local[1] + y) * local[0] + x;
                    let m = per_group - 1 - l;
                    let (mx, my, mz) = (
                        m % local[0],
                        m / local[0] % local[1],
                        m / local[0] / local[1],
                    );
                    let expect = (mx * 100 + my * 10 + mz + l * 1000) as i32;
                    let g = gx + global[0] * (gy + global[1] * gz);
                    assert_eq!(got[g], expect, "({gx}, {gy}, {gz})");
                }
            }
        }
    }
}

#[test]
fn variables_written_in_several_regions_of_a_group_loop() {
    for group in [8usize, 7] {
        let n = group * 2;
        let out = both(
            SOURCE,
            "rounds",
            [n, 1, 1],
            [group, 1, 1],
            &[Arg::Local(group * 4), Arg::Buffer(0)],
            &[vec![0; n * 4]],
        );
        let got = i32s(&out);
        assert_eq!(got.len(), n);
        for (g, &value) in got.iter().enumerate() {
            let lid = (g % group) as i32;
            let (mut acc, mut u) = (0, 1);
            for i in 0..3 {
                let next = (lid + 1) % group as i32;
                acc += (next + i * u) * (i + 1);
                u += 3;
            }
            assert_eq!(value, acc * 7 + u, "item {g}");
        }
    }
}

/// The CLIF of the vectorized region functions of kernel `name` of `source`, in order.
fn region_clif(source: &str, name: &str) -> Vec<String> {
    let collected = clift_compiler::codegen::dump::collect_during(|| {
        kernel(source, name, false);
    });
    collected
        .clif
        .into_iter()
        .filter(|(title, _)| {
            title.starts_with("vectorized region function") && title.contains(name)
        })
        .map(|(_, clif)| clif)
        .collect()
}

#[test]
fn the_reduction_rows_use_vector_loads_and_stores() {
    let regions = region_clif(
        "kernel void reduce2(global const float *in, global float *out, local float *scratch) {
                size_t lid = get_local_id(0);
                scratch[lid] = in[get_global_id(0)];
                barrier(CLK_LOCAL_MEM_FENCE);
                for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
                    if (lid < s) scratch[lid] += scratch[lid + s];
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                if (lid == 0) out[get_group_id(0)] = scratch[0];
            }",
        "reduce2",
    );
    // The first region (the parameters and `scratch[lid] = in[gid]`), the loop's region
    // and the last one.
    assert_eq!(regions.len(), 3, "{regions:#?}");
    // scratch[lid] = in[gid]: one vector load and one vector store.
    assert_eq!(
        regions[0].matches("load.f32x4").count(),
        1,
        "{}",
        regions[0]
    );
    // scratch[lid] += scratch[lid + s]: two vector loads and an f32x4 add where every lane
    // is active.
    assert!(
        regions[1].matches("load.f32x4").count() >= 2,
        "{}",
        regions[1]
    );
    assert!(regions[1].contains("fadd"), "{}", regions[1]);
    // `lid < s` on size_t: one compare of [0, 1, 2, 3] with the splat clamped `s - lid`
    // (`seq_compare.rs`), not four compares of 64-bit lanes.
    assert!(
        regions[1].contains("const0 = 0x00000003000000020000000100000000")
            && regions[1].contains("icmp slt"),
        "{}",
        regions[1]
    );
    assert!(!regions[1].contains("i64x2"), "{}", regions[1]);
    // The loop's region and the last one (`lid == 0`) run only the steps of the ids their
    // test lets in (`bounds.rs`: three `umin`s clamp the ids and the step count, a fourth is
    // the compare's); the first region is not bounded.
    for r in &regions[1..] {
        assert_eq!(r.matches(" umin ").count(), 4, "{r}");
    }
    assert_eq!(regions[0].matches(" umin ").count(), 0, "{}", regions[0]);
}

const RETURNS: &str = r#"
kernel void ret_group(global int *out, local int *t, int skip) {
    int lid = get_local_id(0);
    if (get_group_id(0) == skip) return;
    t[lid] = lid * 3;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[get_local_size(0) - 1 - lid] + 1;
}
kernel void ret_after(local int *t, global int *out) {
    int lid = get_local_id(0);
    t[lid] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = t[(lid + 1) % get_local_size(0)];
    if (v % 3 == 0) return;
    out[get_global_id(0)] = v * 2 + 1;
}
kernel void ret_items(local int *t, int n, global int *out) {
    int g = get_global_id(0), lid = get_local_id(0);
    t[lid] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (g >= n) return;
    t[lid] = g;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = t[lid ^ 1] + 1000 * lid;
}
kernel void ret_loop(local int *t, int rounds, global int *out) {
    int lid = get_local_id(0);
    int acc = 0;
    for (int i = 0; i < 8; i++) {
        if (i == rounds) return;
        t[lid] = lid + i;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[(lid + 1) % get_local_size(0)];
        out[get_global_id(0)] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = -acc;
}
"#;

#[test]
fn a_group_that_returns_before_its_barriers() {
    let (n, group) = (48usize, 16usize);
    let out = i32s(&both(
        RETURNS,
        "ret_group",
        [n, 1, 1],
        [group, 1, 1],
        &[Arg::Buffer(0), Arg::Local(group * 4), Arg::Value(1)],
        &[vec![0; n * 4]],
    ));
    for (g, &value) in out.iter().enumerate() {
        let expect = if g / group == 1 {
            0
        } else {
            (group - 1 - g % group) as i32 * 3 + 1
        };
        assert_eq!(value, expect, "item {g}");
    }
}

#[test]
fn items_that_return_after_the_last_barrier() {
    for group in [16usize, 9] {
        let n = group * 2;
        let out = i32s(&both(
            RETURNS,
            "ret_after",
            [n, 1, 1],
            [group, 1, 1],
            &[Arg::Local(group * 4), Arg::Buffer(0)],
            &[vec![0; n * 4]],
        ));
        for (g, &value) in out.iter().enumerate() {
            let v = ((g % group + 1) % group) as i32;
            let expect = if v % 3 == 0 { 0 } else { v * 2 + 1 };
            assert_eq!(value, expect, "group {group}, item {g}");
        }
    }
}

#[test]
fn items_that_returned_skip_the_later_regions() {
    // Items past `n` return between two barriers (as kernels commonly do, though the
    // spec wants every item at each barrier); the others still see what they wrote before.
    for (n, group) in [(37usize, 16usize), (30, 8), (8, 8)] {
        let global = n.next_multiple_of(group);
        let out = i32s(&both(
            RETURNS,
            "ret_items",
            [global, 1, 1],
            [group, 1, 1],
            &[Arg::Local(group * 4), Arg::Value(n as u64), Arg::Buffer(0)],
            &[vec![0; global * 4]],
        ));
        for (g, &value) in out.iter().enumerate() {
            let partner = g ^ 1;
            let seen = if partner < n { partner as i32 } else { -1 };
            let expect = if g < n {
                seen + 1000 * (g % group) as i32
            } else {
                0
            };
            assert_eq!(value, expect, "n {n}, group {group}, item {g}");
        }
    }
}

#[test]
fn a_uniform_return_inside_a_group_loop() {
    let group = 12usize;
    for rounds in [0i32, 1, 3, 8] {
        let n = group * 2;
        let out = i32s(&both(
            RETURNS,
            "ret_loop",
            [n, 1, 1],
            [group, 1, 1],
            &[
                Arg::Local(group * 4),
                Arg::Value(rounds as u64),
                Arg::Buffer(0),
            ],
            &[vec![0; n * 4]],
        ));
        for (g, &value) in out.iter().enumerate() {
            let next = ((g % group + 1) % group) as i32;
            let done = rounds.min(8);
            let acc: i32 = (0..done).map(|i| next + i).sum();
            let expect = if rounds >= 8 { -acc } else { acc };
            assert_eq!(value, expect, "rounds {rounds}, item {g}");
        }
    }
}

/// Regions that only some local ids need (`bounds.rs`): each region is one `if` testing the
/// local id against a value, in every form the row bounds; values below 0, inside the
/// group, past its whole steps (groups of 13 and 6 have a scalar remainder) and past it.
const BOUNDED: &str = r#"
kernel void bounded(local int *t, int a, long b, uint c, global int *out) {
    int lid = get_local_id(0);
    size_t l = get_local_id(0);
    t[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < a) t[lid] += 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (b >= (long)l) t[lid] += 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == c) t[lid] += 4;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid <= a - 2) t[lid] += 8;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (c > get_local_id(0)) { t[lid] += 16; t[(lid + 1) % get_local_size(0)] += 32; }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid];
}
"#;

#[test]
fn regions_that_only_some_ids_need() {
    for group in [16usize, 13, 6] {
        let n = group * 2;
        for v in [-3i64, 0, 1, 4, 5, 12, 13, 15, 100] {
            let (a, b, c) = (v as i32, v, v.max(0) as u32);
            let out = i32s(&both(
                BOUNDED,
                "bounded",
                [n, 1, 1],
                [group, 1, 1],
                &[
                    Arg::Local(group * 4),
                    Arg::Value(a as u32 as u64),
                    Arg::Value(b as u64),
                    Arg::Value(u64::from(c)),
                    Arg::Buffer(0),
                ],
                &[vec![0; n * 4]],
            ));
            for (g, &value) in out.iter().enumerate() {
                let l = (g % group) as i64;
                let prev = (l + group as i64 - 1) % group as i64;
                let expect = i32::from(l < i64::from(a))
                    + 2 * i32::from(b >= l)
                    + 4 * i32::from(l == i64::from(c))
                    + 8 * i32::from(l <= i64::from(a) - 2)
                    + 16 * i32::from(i64::from(c) > l)
                    + 32 * i32::from(i64::from(c) > prev);
                assert_eq!(value, expect, "group {group}, value {v}, item {g}");
            }
        }
    }
}

/// Comparisons of 64-bit ids with uniform values (`seq_compare.rs`): as masks (`if`) and
/// as 0/1 values, both operand orders, signed and unsigned, with values below, inside and
/// above the step's ids and at the ends of the types.
const COMPARE64: &str = r#"
kernel void cmp64(global const long *vals, global int *out) {
    size_t lid = get_local_id(0);
    size_t g = get_global_id(0);
    long sl = (long)lid;
    for (int j = 0; j < 12; j++) {
        long v = vals[j];
        ulong u = (ulong)v;
        int bits = (lid < u) | (lid <= u) << 1 | (lid > u) << 2 | (lid >= u) << 3
            | (lid == u) << 4 | (lid != u) << 5 | (u < lid) << 6 | (u >= lid) << 7
            | (sl < v) << 8 | (sl <= v) << 9 | (sl > v) << 10 | (sl >= v) << 11
            | (sl == v) << 12 | (v > sl) << 13 | (g + 1 < u) << 14;
        if (lid < u) bits |= 1 << 16;
        if (v <= sl) bits |= 1 << 17;
        if (g + 1 >= u) bits |= 1 << 18;
        out[g * 12 + j] = bits;
    }
}
"#;

#[test]
fn comparisons_of_64_bit_ids_with_uniform_values() {
    let vals: [i64; 12] = [-5, 0, 1, 2, 3, 5, 6, 9, 1 << 40, i64::MIN, -1, i64::MAX];
    let vals_bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let (n, group) = (24usize, 8usize);
    let out = i32s(&both(
        COMPARE64,
        "cmp64",
        [n, 1, 1],
        [group, 1, 1],
        &[Arg::Buffer(0), Arg::Buffer(1)],
        &[vals_bytes, vec![0; n * 12 * 4]],
    ));
    for g in 0..n {
        let lid = (g % group) as u64;
        for (j, &v) in vals.iter().enumerate() {
            let (u, sl) = (v as u64, lid as i64);
            let gu = g as u64 + 1;
            let bits = [
                lid < u,
                lid <= u,
                lid > u,
                lid >= u,
                lid == u,
                lid != u,
                u < lid,
                u >= lid,
                sl < v,
                sl <= v,
                sl > v,
                sl >= v,
                sl == v,
                v > sl,
                gu < u,
                false,
                lid < u,
                v <= sl,
                gu >= u,
            ]
            .iter()
            .enumerate()
            .fold(0i32, |acc, (k, &b)| acc | (i32::from(b) << k));
            assert_eq!(out[g * 12 + j], bits, "item {g}, value {v}");
        }
    }
}

#[test]
fn elements_of_constant_arrays_at_varying_indices() {
    // Not a barrier kernel: array elements in memory are addressed like pointers' (a
    // gather where the index is not consecutive, one vector load where it is).
    let source = "constant int tbl[5] = {3, -1, 4, 1, -5};
        constant int grid[8][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}};
        constant int ramp[16] = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150};
        kernel void lut(global int *out) {
            int i = get_global_id(0);
            out[i] = tbl[i % 5] * 1000 + grid[(i * 3) & 7][i & 1] * 10 + ramp[i & 15];
        }";
    let n = 40;
    let out = i32s(&both(
        source,
        "lut",
        [n, 1, 1],
        [8, 1, 1],
        &[Arg::Buffer(0)],
        &[vec![0; n * 4]],
    ));
    let tbl = [3, -1, 4, 1, -5];
    for (i, &value) in out.iter().enumerate() {
        let g = (i * 3) & 7;
        let expect = tbl[i % 5] * 1000 + (2 * g + (i & 1)) as i32 * 10 + (i & 15) as i32 * 10;
        assert_eq!(value, expect, "item {i}");
    }
}

/// `uchar4` pixels live across a barrier (each item's frame) and through local memory.
const PIXELS: &str = r#"
kernel void neighbours(global const uchar4 *in, local uchar4 *t, global uchar4 *out) {
    int l = get_local_id(0), n = get_local_size(0);
    uchar4 p = in[get_global_id(0)];
    t[l] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
    uchar4 q = t[(l + 1) % n];
    out[get_global_id(0)] = rhadd(p, q) ^ (uchar4)(0, 0x80, 0xff, 1);
}
"#;

#[test]
fn vectors_of_bytes_across_a_barrier() {
    for group in [16usize, 13, 6] {
        let n = group * 3;
        let input: Vec<u8> = (0..4 * n).map(|i| (i * 73 % 256) as u8).collect();
        let out = both(
            PIXELS,
            "neighbours",
            [n, 1, 1],
            [group, 1, 1],
            &[Arg::Buffer(0), Arg::Local(group * 4), Arg::Buffer(1)],
            &[input.clone(), vec![0; 4 * n]],
        );
        for g in 0..n {
            let next = g - g % group + (g % group + 1) % group;
            for (c, x) in [0u8, 0x80, 0xff, 1].into_iter().enumerate() {
                let (p, q) = (u32::from(input[4 * g + c]), u32::from(input[4 * next + c]));
                let want = ((p + q + 1) >> 1) as u8 ^ x;
                assert_eq!(
                    out[4 * g + c],
                    want,
                    "group {group}, item {g}, component {c}"
                );
            }
        }
    }
}

const TRIPS: &str = r#"
kernel void trips(local int *t, global int *out) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    t[lid] = lid * 3 + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    int acc = 0;
    for (int k = 0; k < 8; k++) acc += t[(lid + k) % n] * (k + 1);
    for (int k = 15; k >= 0; k -= 4) acc ^= t[k % n] << (k & 7);
    for (uint k = 1; k != 13; k += 3) acc += (int)k * lid;
    for (int k = 0; k < 17; k++) acc += k;
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 10; j++) {
            if (j > k) break;
            acc += j * lid;
        }
    }
    for (int k = 3; k > 3; k--) acc = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = acc;
}
"#;

/// Uniform loops of a constant trip count between barriers (`simd/trips.rs`: unrolled in
/// the vectorized region row, counting up, down, by 3 to a `!=` bound, one of 17 trips
/// that stays a loop, one around a loop with a `break`, one of no trip) give the values
/// the loops give.
#[test]
fn constant_loops_between_barriers() {
    for group in [16usize, 12, 7] {
        let n = group * 2;
        let out = i32s(&both(
            TRIPS,
            "trips",
            [n, 1, 1],
            [group, 1, 1],
            &[Arg::Local(group * 4), Arg::Buffer(0)],
            &[vec![0; n * 4]],
        ));
        for (g, &value) in out.iter().enumerate() {
            let (lid, gs) = ((g % group) as i32, group as i32);
            let t = |i: i32| i * 3 + 1;
            let mut acc = 0i32;
            for k in 0..8 {
                acc += t((lid + k) % gs) * (k + 1);
            }
            for k in [15, 11, 7, 3] {
                acc ^= t(k % gs) << (k & 7);
            }
            for k in [1, 4, 7, 10] {
                acc += k * lid;
            }
            acc += (0..17).sum::<i32>();
            for k in 0..4 {
                for j in 0..=k {
                    acc += j * lid;
                }
            }
            assert_eq!(value, acc, "group {group}, item {g}");
        }
    }
}

/// The tiled product's inner loop (16 trips) is unrolled in its vectorized region: 16
/// vector loads of `tb[k][lx]` and 16 broadcasts of `ta[ly][k]`, no loop test on `k`.
#[test]
fn the_tiled_products_inner_loop_is_unrolled() {
    let regions = region_clif(SOURCE, "sgemm_tiled");
    // The first region (the parameters, the ids, `acc = 0`), the tiles' loads, the
    // products and the store.
    assert_eq!(regions.len(), 4, "{regions:#?}");
    let inner = &regions[2];
    assert_eq!(inner.matches("load.f32x4").count(), 16, "{inner}");
    assert_eq!(inner.matches("splat.f32x4").count(), 17, "{inner}");
    assert!(!inner.contains("icmp slt"), "{inner}");
}
