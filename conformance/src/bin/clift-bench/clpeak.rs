//! clpeak's kernels of 16-wide vector types (clpeak 1.1's `global_bandwidth_v16_*`, and its
//! narrower `global_bandwidth_v{1,2,4,8}_*`,
//! `compute_sp_v16`, `compute_dp_v16`, `compute_integer_v16`), launched as clpeak launches
//! them, so that its figures are reproducible without clpeak (which, on a device reporting
//! `cl_khr_fp16`, first runs a half-precision test of several minutes).
//!
//! These are the kernels where 128-bit registers hurt most: a `float16` across 4
//! work-items is 16 registers, all of x64's; PoCL keeps one in an AVX-512 register.

use opencl_sys::{CL_DEVICE_MAX_WORK_GROUP_SIZE, cl_device_id, cl_kernel, cl_mem};

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

/// Rounds of the float16 read: in each, the native read at both widths and every driver's
/// kernels, in turn.
const FLOAT16_ROUNDS: usize = 5;

/// clpeak's bandwidth test of `float`s of width `width` (1 to 16) on one driver, set up:
/// the program, the input and output buffers, and the two kernels.
struct Read<'a> {
    bench: Bench<'a>,
    buffers: [cl_mem; 2],
    kernels: [cl_kernel; 2],
    /// Work-items of a launch, and of a group: the device's largest up to 256.
    items: usize,
    local: usize,
    /// Bytes of the input: whole groups of 16 fetches of one element per item.
    bytes: usize,
}

impl<'a> Read<'a> {
    /// Builds the kernels and fills the input, about `bytes` of it.
    fn new(d: &'a Driver, width: usize, bytes: usize) -> Result<Read<'a>, String> {
        let local = max_group(d)?.min(CLPEAK_LOCAL);
        let element = 4 * width;
        let per_group = local * 16 * element;
        let bytes = bytes / per_group * per_group;
        let items = bytes / element / 16;
        let bench = Bench::build_with(d, SOURCE, OPTIONS)?;
        let mut kernels = [std::ptr::null_mut(); 2];
        for (k, offset) in kernels.iter_mut().zip(["lo", "go"]) {
            *k = bench.kernel(&format!("global_bandwidth_v{width}_{offset}"))?;
        }
        let input: Vec<f32> = (0..bytes / 4).map(|i| (i % 251) as f32 / 251.0).collect();
        let a = d.buffer_from(&input)?;
        let b = d.buffer(items * 4).inspect_err(|_| d.release(a))?;
        for &k in &kernels {
            bench.arg(k, 0, &a);
            bench.arg(k, 1, &b);
        }
        Ok(Read {
            bench,
            buffers: [a, b],
            kernels,
            items,
            local,
            bytes,
        })
    }

    /// GB/s as clpeak measures them: for each kernel two launches to warm up, then the mean
    /// of 20 launches enqueued back to back; the faster of the two kernels. (A best of
    /// single launches, this bench's method until session 16, hides the launches that a
    /// shared machine slows, which clpeak's mean counts: the two methods disagreed on the
    /// float16 row; docs/PERFORMANCE.md, session 16.)
    fn measure(&self) -> Result<f64, String> {
        let (global, local) = ([self.items], [self.local]);
        let mut fastest = f64::INFINITY;
        for &k in &self.kernels {
            for _ in 0..2 {
                self.bench.run(k, &global, Some(&local))?;
            }
            let mean = self
                .bench
                .mean_of_back_to_back(k, &global, Some(&local), CLPEAK_ITERS)?;
            fastest = fastest.min(mean);
        }
        Ok(self.bytes as f64 / fastest / 1e9)
    }
}

impl Drop for Read<'_> {
    fn drop(&mut self) {
        let d = self.bench.driver();
        for &k in &self.kernels {
            d.release_kernel(k);
        }
        for &m in &self.buffers {
            d.release(m);
        }
    }
}

/// GB/s read by clpeak's bandwidth test of `float`s of width `width` over `bytes` of
/// input, measured once ([`Read::measure`]).
fn bandwidth(d: &Driver, width: usize, bytes: usize) -> Result<f64, String> {
    Read::new(d, width, bytes)?.measure()
}

/// Each driver's float16 read and the native read at both widths, GB/s, over
/// [`FLOAT16_ROUNDS`] rounds: the figures sit at the machine's limit, where a single
/// measurement of each, minutes apart on a shared host whose bandwidth drifts, decided
/// which driver came first (clift / PoCL 0.84–1.02× in five runs of session 18). Each
/// round measures all of them in turn, starting one later each round.
struct Float16Rounds {
    /// One column per driver, one figure per round (`None` where a driver failed).
    drivers: Vec<Vec<Option<f64>>>,
    narrow: Vec<Option<f64>>,
    widest: Vec<Option<f64>>,
    wide_bits: Option<u32>,
}

fn float16_rounds(drivers: &[Driver], bytes: usize) -> Float16Rounds {
    let reads: Vec<Option<Read<'_>>> = drivers
        .iter()
        .map(|d| {
            Read::new(d, 16, bytes)
                .map_err(|e| eprintln!("clift-bench: {}: {e}", d.name))
                .ok()
        })
        .collect();
    let mut pattern = stream::clpeak_pattern(bytes);
    let mut out = Float16Rounds {
        drivers: vec![Vec::new(); drivers.len()],
        narrow: Vec::new(),
        widest: Vec::new(),
        wide_bits: pattern.as_ref().map(|p| p.wide_bits()),
    };
    // The native reads are the last two of the turns: `drivers.len()` and the next.
    let turns = drivers.len() + 2;
    for round in 0..FLOAT16_ROUNDS {
        for at in turn_order(round, turns) {
            match at {
                at if at < drivers.len() => {
                    let gbs = reads[at].as_ref().and_then(|r| {
                        r.measure()
                            .map_err(|e| eprintln!("clift-bench: {}: {e}", drivers[at].name))
                            .ok()
                    });
                    out.drivers[at].push(gbs);
                }
                at => {
                    let loads = if at == drivers.len() {
                        stream::Loads::Narrow
                    } else {
                        stream::Loads::Widest
                    };
                    let gbs = pattern.as_mut().map(|p| p.read(loads, CLPEAK_ITERS));
                    match loads {
                        stream::Loads::Narrow => out.narrow.push(gbs),
                        stream::Loads::Widest => out.widest.push(gbs),
                    }
                }
            }
        }
    }
    out
}

/// Who measures when in round `round` of `turns` measurements: each once, the first one
/// later each round, so that no one always follows the same one (a driver's threads may
/// still be winding down when the next starts).
fn turn_order(round: usize, turns: usize) -> impl Iterator<Item = usize> {
    (0..turns).map(move |step| (round + step) % turns)
}

/// The float16 row, its rounds as a note, and a line on stderr.
fn float16_row(drivers: &[Driver], bytes: usize, table: &mut Table) {
    let rounds = float16_rounds(drivers, bytes);
    let (narrow, widest) = (
        stream::median(&rounds.narrow),
        stream::median(&rounds.widest),
    );
    let Some(bits) = rounds.wide_bits else {
        // No native read to compare with (a CPU without AVX): the drivers' medians alone.
        table.add(
            SECTION,
            format!(
                "clpeak global memory bandwidth float16, {} MiB, median of {FLOAT16_ROUNDS} \
                 rounds",
                bytes >> 20
            ),
            "GB/s",
            Better::Higher,
            rounds.drivers.iter().map(|c| stream::median(c)).collect(),
            None,
        );
        return;
    };
    let listed = stream::listed;
    let mut note = format!(
        "clpeak float16 read, GB/s of each of {FLOAT16_ROUNDS} rounds: natively with \
         128-bit loads {}, with {bits}-bit loads {}",
        listed(&rounds.narrow),
        listed(&rounds.widest)
    );
    for (d, column) in drivers.iter().zip(&rounds.drivers) {
        note += &format!("; {} {}", d.name, listed(column));
    }
    if let (Some(n), Some(w)) = (narrow, widest) {
        note += &format!(
            ". Medians natively: 128-bit {n:.1}, {bits}-bit {w:.1} ({:.2}x); each driver \
             against the native read of its loads' width (clift's Cranelift code has 128-bit \
             loads, PoCL's AVX-512 code {bits}-bit):",
            n / w
        );
        for (d, column) in drivers.iter().zip(&rounds.drivers) {
            if let Some(m) = stream::median(column) {
                let own = if d.name.starts_with("clift") { n } else { w };
                note += &format!(" {} {:.0}%", d.name, 100.0 * m / own);
            }
        }
    }
    eprintln!("clift-bench: {note}");
    table.note(SECTION, note + ".");
    table.add(
        SECTION,
        format!(
            "clpeak global memory bandwidth float16, {} MiB, median of {FLOAT16_ROUNDS} rounds \
             (vs its read natively, {bits}-bit loads)",
            bytes >> 20
        ),
        "GB/s",
        Better::Higher,
        rounds.drivers.iter().map(|c| stream::median(c)).collect(),
        widest,
    );
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
    let bytes = stream::array_bytes(effort, drivers);
    let machine = stream::machine(bytes, effort);
    // float16 first (the issue's row), in rounds with its read natively, then clpeak's
    // narrower widths, measured once each against the machine's all-core sum.
    float16_row(drivers, bytes, table);
    for (width, name) in [(1, "float"), (2, "float2"), (4, "float4"), (8, "float8")] {
        let bw = per_driver(drivers, &|d| bandwidth(d, width, bytes));
        table.add(
            SECTION,
            format!(
                "clpeak global memory bandwidth {name}, {} MiB (vs all-core sum)",
                bytes >> 20
            ),
            "GB/s",
            Better::Higher,
            bw,
            Some(machine.read),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_round_measures_everyone_once_starting_one_later() {
        let orders: Vec<Vec<usize>> = (0..5).map(|r| turn_order(r, 4).collect()).collect();
        assert_eq!(orders[0], [0, 1, 2, 3]);
        assert_eq!(orders[1], [1, 2, 3, 0]);
        assert_eq!(orders[3], [3, 0, 1, 2]);
        assert_eq!(orders[4], [0, 1, 2, 3]);
        for order in &orders {
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, [0, 1, 2, 3]);
        }
    }
}
