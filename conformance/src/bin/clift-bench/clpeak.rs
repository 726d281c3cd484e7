//! clpeak's kernels of 16-wide vector types (clpeak 1.1's `global_bandwidth_v16_*`, and its
//! narrower `global_bandwidth_v{1,2,4,8}_*`,
//! `compute_sp_v16`, `compute_dp_v16`, `compute_integer_v16`), launched as clpeak launches
//! them, so that its figures are reproducible without clpeak (which, on a device reporting
//! `cl_khr_fp16`, first runs a half-precision test of several minutes).
//!
//! These are the kernels where 128-bit registers hurt most: a `float16` across 4
//! work-items is 16 registers, all of x64's; PoCL keeps one in an AVX-512 register.

use opencl_sys::{CL_DEVICE_MAX_WORK_GROUP_SIZE, cl_device_id};

use crate::Effort;
use crate::driver::{Driver, per_driver};
use crate::kernels::{Bench, best};
use crate::report::{Better, Table};
use crate::stream;

const SECTION: &str = "Kernels: clpeak's 16-wide vector types";

/// clpeak's build options: its `mad`s may fuse.
const OPTIONS: &str = "-cl-mad-enable";

/// clpeak's kernel texts: the bandwidth kernels read 16 elements per work-item, at a
/// stride of the local size (`_lo`) or of the global size (`_go`); the compute kernels run
/// 8 × 64 dependent multiply-adds on two 16-wide vectors.
const SOURCE: &str = concat!(
    crate::vectors::mad_macros!(),
    r#"
#define FETCH_2(sum, id, A, jump) sum += A[id]; id += jump; sum += A[id]; id += jump;
#define FETCH_4(sum, id, A, jump) FETCH_2(sum, id, A, jump); FETCH_2(sum, id, A, jump);
#define FETCH_PER_WI 16
/* The kernels differ in the element type, where an item starts and how far it jumps. */
#define BANDWIDTH(name, T, start, jump, TOTAL)                                            \
kernel void name(global T *A, global float *B) {                                          \
    int id = start;                                                                       \
    T sum = 0;                                                                            \
    for (int i = 0; i < 4; i++) {                                                         \
        FETCH_4(sum, id, A, jump);                                                        \
    }                                                                                     \
    TOTAL                                                                                 \
}
#define TOTAL_1 B[get_global_id(0)] = sum;
#define TOTAL_2 B[get_global_id(0)] = (sum.S0) + (sum.S1);
#define TOTAL_4 B[get_global_id(0)] = (sum.S0) + (sum.S1) + (sum.S2) + (sum.S3);
#define TOTAL_8 B[get_global_id(0)] = (sum.S0) + (sum.S1) + (sum.S2) + (sum.S3) + (sum.S4) + \
    (sum.S5) + (sum.S6) + (sum.S7);
#define TOTAL_16 \
    float t = (sum.S0) + (sum.S1) + (sum.S2) + (sum.S3) + (sum.S4) + (sum.S5) + (sum.S6) + (sum.S7); \
    t += (sum.S8) + (sum.S9) + (sum.SA) + (sum.SB) + (sum.SC) + (sum.SD) + (sum.SE) + (sum.SF); \
    B[get_global_id(0)] = t;
#define BANDWIDTH_BOTH(w, T)                                                              \
    BANDWIDTH(global_bandwidth_v##w##_lo, T,                                              \
        (get_group_id(0) * get_local_size(0) * FETCH_PER_WI) + get_local_id(0),          \
        get_local_size(0), TOTAL_##w)                                                     \
    BANDWIDTH(global_bandwidth_v##w##_go, T, get_global_id(0), get_global_size(0), TOTAL_##w)
BANDWIDTH_BOTH(1, float)
BANDWIDTH_BOTH(2, float2)
BANDWIDTH_BOTH(4, float4)
BANDWIDTH_BOTH(8, float8)
BANDWIDTH_BOTH(16, float16)

#define LANES16(T, a) (T)(a, (a + 1), (a + 2), (a + 3), (a + 4), (a + 5), (a + 6), (a + 7), \
    (a + 8), (a + 9), (a + 10), (a + 11), (a + 12), (a + 13), (a + 14), (a + 15))
#define SUM16(y) (y.S0) + (y.S1) + (y.S2) + (y.S3) + (y.S4) + (y.S5) + (y.S6) + (y.S7) + \
    (y.S8) + (y.S9) + (y.SA) + (y.SB) + (y.SC) + (y.SD) + (y.SE) + (y.SF)

/* clpeak's compute_sp_v16, compute_dp_v16 and compute_integer_v16. */
#define COMPUTE_V16(name, T, S, MAD)                                                      \
kernel void name(global S *ptr, S _A) {                                                   \
    T x = LANES16(T, _A);                                                                 \
    T y = (T)get_local_id(0);                                                             \
    for (int i = 0; i < 8; i++) {                                                         \
        MAD(x, y);                                                                        \
    }                                                                                     \
    ptr[get_global_id(0)] = SUM16(y);                                                     \
}
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
COMPUTE_V16(compute_sp_v16, float16, float, MAD_64)
COMPUTE_V16(compute_dp_v16, double16, double, MAD_64)
COMPUTE_V16(compute_integer_v16, int16, int, IMAD_64)
"#
);

/// The device's `CL_DEVICE_MAX_WORK_GROUP_SIZE`: clpeak's local size.
fn max_group(d: &Driver) -> Result<usize, String> {
    let api = &d.api;
    let mut device: cl_device_id = std::ptr::null_mut();
    // SAFETY: the queue's device handle is written to `device`.
    let status = unsafe {
        clift_conformance::entry!(api.clGetCommandQueueInfo)(
            d.queue,
            opencl_sys::CL_QUEUE_DEVICE,
            size_of::<cl_device_id>(),
            (&raw mut device).cast(),
            std::ptr::null_mut(),
        )
    };
    if status != opencl_sys::CL_SUCCESS {
        return Err(format!("clGetCommandQueueInfo: {status}"));
    }
    let mut size = 0usize;
    // SAFETY: a valid device; one size_t is written.
    let status = unsafe {
        clift_conformance::entry!(api.clGetDeviceInfo)(
            device,
            CL_DEVICE_MAX_WORK_GROUP_SIZE,
            size_of::<usize>(),
            (&raw mut size).cast(),
            std::ptr::null_mut(),
        )
    };
    if status != opencl_sys::CL_SUCCESS {
        return Err(format!("clGetDeviceInfo: {status}"));
    }
    Ok(size)
}

/// clpeak's largest local size (`MAX_WG_SIZE` in clpeak 1.1), for every kernel it launches.
const CLPEAK_LOCAL: usize = 256;

/// The launches clpeak 1.1 times per bandwidth kernel on a CPU device (`gloalBWIters`).
const CLPEAK_ITERS: usize = 20;

/// GB/s read by clpeak's bandwidth test of `float`s of width `width` (1 to 16) over
/// `bytes` of input, timed as clpeak times it: local size the device's largest up to 256,
/// two launches to warm up, then the mean of 20 launches enqueued back to back; the faster
/// of its two kernels. (A best of single launches, this bench's method until session 16,
/// hides the launches that a shared machine slows, which clpeak's mean counts: the two
/// methods disagreed on the float16 row; docs/PERFORMANCE.md, session 16.)
fn bandwidth(d: &Driver, width: usize, bytes: usize) -> Result<f64, String> {
    let local = max_group(d)?.min(CLPEAK_LOCAL);
    let element = 4 * width;
    // Whole groups of 16 fetches of one element per item.
    let per_group = local * 16 * element;
    let bytes = bytes / per_group * per_group;
    let items = bytes / element / 16;
    let bench = Bench::build_with(d, SOURCE, OPTIONS)?;
    let input: Vec<f32> = (0..bytes / 4).map(|i| (i % 251) as f32 / 251.0).collect();
    let (a, b) = (d.buffer_from(&input)?, d.buffer(items * 4)?);
    let mut fastest = f64::INFINITY;
    for offset in ["lo", "go"] {
        let k = bench.kernel(&format!("global_bandwidth_v{width}_{offset}"))?;
        bench.arg(k, 0, &a);
        bench.arg(k, 1, &b);
        for _ in 0..2 {
            bench.run(k, &[items], Some(&[local]))?;
        }
        let mean = bench.mean_of_back_to_back(k, &[items], Some(&[local]), CLPEAK_ITERS)?;
        fastest = fastest.min(mean);
    }
    d.release(a);
    d.release(b);
    Ok(bytes as f64 / fastest / 1e9)
}

/// Giga-operations per second of a 16-wide compute kernel over `n` items.
fn compute_v16<T>(d: &Driver, name: &str, n: usize, scalar: T, reps: usize) -> Result<f64, String> {
    let bench = Bench::build_with(d, SOURCE, OPTIONS)?;
    let k = bench.kernel(name)?;
    let local = max_group(d)?.min(CLPEAK_LOCAL);
    let out = d.buffer(n * 8)?;
    bench.arg(k, 0, &out);
    bench.arg(k, 1, &scalar);
    bench.run(k, &[n], Some(&[local]))?;
    let t = best(reps, || bench.run(k, &[n], Some(&[local])))?;
    d.release(out);
    // 8 × 64 multiply-adds (or multiply and add) of 16 lanes: 2 operations each.
    Ok(n as f64 * (8 * 64 * 16 * 2) as f64 / t / 1e9)
}

pub fn run(drivers: &[Driver], effort: Effort, table: &mut Table) {
    let reps = effort.bandwidth_repeats;
    let bytes = stream::array_bytes(effort);
    let machine = stream::machine(bytes, effort);
    // The float16 row's own limit: its read order natively, with the CPU's widest loads
    // (PoCL's, on AVX-512) and, on stderr, with 128-bit ones (clift's).
    let pattern = stream::clpeak_pattern(bytes, effort);
    // float16 first (the issue's row), then clpeak's narrower widths.
    for (width, name) in [
        (16, "float16"),
        (1, "float"),
        (2, "float2"),
        (4, "float4"),
        (8, "float8"),
    ] {
        let bw = per_driver(drivers, &|d| bandwidth(d, width, bytes));
        let (against, limit) = match pattern {
            Some(p) if width == 16 => (
                format!("its read natively, {}-bit loads", p.wide_bits),
                p.wide,
            ),
            _ => ("all-core sum".to_string(), machine.read),
        };
        table.add(
            SECTION,
            format!(
                "clpeak global memory bandwidth {name}, {} MiB (vs {against})",
                bytes >> 20
            ),
            "GB/s",
            Better::Higher,
            bw,
            Some(limit),
        );
    }
    let n = if effort.bandwidth_bytes >= 256 << 20 {
        1 << 16
    } else {
        1 << 14
    };
    for (name, label, unit) in [
        (
            "compute_sp_v16",
            "clpeak single precision float16",
            "GFLOP/s",
        ),
        (
            "compute_dp_v16",
            "clpeak double precision double16",
            "GFLOP/s",
        ),
        ("compute_integer_v16", "clpeak integer int16", "GIOP/s"),
    ] {
        let values = per_driver(drivers, &|d| match name {
            "compute_dp_v16" => compute_v16(d, name, n, 1.3f64, reps),
            "compute_integer_v16" => compute_v16(d, name, n, 3i32, reps),
            _ => compute_v16(d, name, n, 1.3f32, reps),
        });
        table.add(SECTION, label, unit, Better::Higher, values, None);
    }
}
