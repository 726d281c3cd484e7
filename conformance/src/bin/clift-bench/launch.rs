//! Kernel-launch figures: what a launch costs when the kernel does (almost) nothing.
//!
//! - an empty kernel of one work-item, `clEnqueueNDRangeKernel` + `clFinish`;
//! - a burst of tiny kernels on an in-order queue: the enqueue calls alone (per kernel), and
//!   the whole burst to its `clFinish` (kernels per second);
//! - a 64-work-item kernel with four buffer arguments, enqueue + `clFinish`;
//! - clpeak's kernel launch latency: an empty kernel on a profiling queue, enqueue +
//!   `clFinish`, the mean of its profiling start minus queued times;
//! - the cost of one work-group: an empty kernel over 2^20 one-item groups, and over 2^16
//!   groups of 64 items, in nanoseconds per group (the CTS's test_basic imagedim_* sub-tests
//!   run about a billion one-item groups, so this decides whether such a suite finishes);
//!   the same for a tiny kernel that adds 1 to an `int` per item (an empty kernel's items
//!   are skipped, by clift since session 17 as by PoCL's LLVM).

use std::ptr::{null, null_mut};
use std::time::Instant;

use clift_conformance::entry;
use opencl_sys::*;

use crate::Effort;
use crate::driver::{Driver, per_driver};
use crate::kernels::Bench;
use crate::report::{Better, Table};

const SECTION: &str = "Runtime: kernel launch";
const BURST: usize = 10_000;
/// The groups of the per-group rows: (items per group, groups).
const GROUP_ROWS: [(usize, usize); 2] = [(1, 1 << 20), (64, 1 << 16)];

const SOURCE: &str = "kernel void empty(void) {}\n\
    kernel void tiny(global int *a) { a[get_global_id(0)] += 1; }\n\
    kernel void four(global float *a, global const float *b, global const float *c,\n\
                     global float *d) {\n\
      size_t i = get_global_id(0);\n\
      a[i] = b[i] + c[i]; d[i] = b[i] * c[i];\n\
    }\n";

pub fn run(drivers: &[Driver], effort: Effort, table: &mut Table) {
    let n = effort.latency_iterations;
    let per = |f: &dyn Fn(&Driver) -> Result<f64, String>| per_driver(drivers, f);
    let empty = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("empty")?;
        let t = launches(d, k, 1, n)?;
        d.release_kernel(k);
        Ok(t * 1e6)
    });
    table.add(
        SECTION,
        "empty 1-item kernel: enqueue + clFinish",
        "µs",
        Better::Lower,
        empty,
        None,
    );
    let latency = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("empty")?;
        let t = launch_latency(d, k, n);
        d.release_kernel(k);
        t
    });
    table.add(
        SECTION,
        "kernel launch latency, profiling start - queued (clpeak's method)",
        "µs",
        Better::Lower,
        latency,
        None,
    );
    let four = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("four")?;
        let buffers: Vec<cl_mem> = (0..4).map(|_| d.buffer(64 * 4)).collect::<Result<_, _>>()?;
        for (i, b) in buffers.iter().enumerate() {
            bench.arg(k, i as u32, b);
        }
        let t = launches(d, k, 64, n);
        d.release_kernel(k);
        buffers.into_iter().for_each(|b| d.release(b));
        Ok(t? * 1e6)
    });
    table.add(
        SECTION,
        "64-item kernel, 4 buffer arguments: enqueue + clFinish",
        "µs",
        Better::Lower,
        four,
        None,
    );
    // The empty kernel's items do nothing (both drivers skip them); the tiny kernel's
    // each add to memory, so its rows also count the work-group function's own work.
    for (kernel, label) in [
        ("empty", "empty kernel"),
        ("tiny", "tiny kernel (a[i] += 1)"),
    ] {
        for (items, groups) in GROUP_ROWS {
            let per_group = per(&|d| {
                let bench = Bench::build(d, SOURCE)?;
                let k = bench.kernel(kernel)?;
                let buffer = match kernel {
                    "tiny" => Some(d.buffer(items * groups * 4)?),
                    _ => None,
                };
                if let Some(buffer) = &buffer {
                    bench.arg(k, 0, buffer);
                }
                let t = group_cost(d, k, items, groups);
                d.release_kernel(k);
                if let Some(buffer) = buffer {
                    d.release(buffer);
                }
                t
            });
            table.add(
                SECTION,
                format!("{label}, {groups} groups of {items}: per group"),
                "ns",
                Better::Lower,
                per_group,
                None,
            );
        }
    }
    let bursts: Vec<Option<(f64, f64)>> = drivers
        .iter()
        .map(|d| {
            burst(d)
                .map_err(|e| eprintln!("clift-bench: {}: {e}", d.name))
                .ok()
        })
        .collect();
    table.add(
        SECTION,
        format!("burst of {BURST} tiny kernels: enqueue only, per kernel"),
        "µs",
        Better::Lower,
        bursts
            .iter()
            .map(|b| b.map(|(enqueue, _)| enqueue))
            .collect(),
        None,
    );
    table.add(
        SECTION,
        format!("burst of {BURST} tiny kernels: enqueue to clFinish"),
        "kernels/s",
        Better::Higher,
        bursts.iter().map(|b| b.map(|(_, rate)| rate)).collect(),
        None,
    );
}

/// The mean time of `count` launches of `k` over `items` work-items, each waited for.
fn launches(d: &Driver, k: cl_kernel, items: usize, count: usize) -> Result<f64, String> {
    // A first launch outside the timing (PoCL finishes code generation there).
    enqueue(d, k, items)?;
    d.finish();
    let start = Instant::now();
    for _ in 0..count {
        enqueue(d, k, items)?;
        d.finish();
    }
    Ok(start.elapsed().as_secs_f64() / count as f64)
}

/// clpeak's kernel launch latency in µs: the mean of `CL_PROFILING_COMMAND_START` minus
/// `CL_PROFILING_COMMAND_QUEUED` over `count` launches of the empty kernel `k` on a profiling
/// queue, each followed by `clFinish`.
fn launch_latency(d: &Driver, k: cl_kernel, count: usize) -> Result<f64, String> {
    let api = &d.api;
    let mut device: cl_device_id = null_mut();
    let mut status = CL_SUCCESS;
    // SAFETY: the driver's queue; one device handle is written to `device`.
    unsafe {
        entry!(api.clGetCommandQueueInfo)(
            d.queue,
            CL_QUEUE_DEVICE,
            size_of::<cl_device_id>(),
            (&raw mut device).cast(),
            null_mut(),
        )
    };
    // SAFETY: the driver's context and its device.
    let queue = unsafe {
        entry!(api.clCreateCommandQueue)(d.context, device, CL_QUEUE_PROFILING_ENABLE, &mut status)
    };
    if status != CL_SUCCESS {
        return Err(format!("clCreateCommandQueue (profiling): {status}"));
    }
    let global = [1usize];
    let time = |event: cl_event, param: cl_profiling_info| {
        let mut t: cl_ulong = 0;
        // SAFETY: a finished event of a profiling queue; one cl_ulong is written.
        unsafe {
            entry!(api.clGetEventProfilingInfo)(
                event,
                param,
                size_of::<cl_ulong>(),
                (&raw mut t).cast(),
                null_mut(),
            )
        };
        t
    };
    let mut total = 0.0;
    let mut result = Ok(());
    for round in 0..=count {
        let mut event: cl_event = null_mut();
        // SAFETY: a one-item range on the profiling queue; one event is returned.
        let status = unsafe {
            entry!(api.clEnqueueNDRangeKernel)(
                queue,
                k,
                1,
                null(),
                global.as_ptr(),
                null(),
                0,
                null(),
                &mut event,
            )
        };
        if status != CL_SUCCESS {
            result = Err(format!("clEnqueueNDRangeKernel (profiling): {status}"));
            break;
        }
        // SAFETY: the profiling queue; then the event this loop owns.
        unsafe { entry!(api.clFinish)(queue) };
        // The first launch is outside the measure (PoCL finishes code generation there).
        if round > 0 {
            let waited = time(event, CL_PROFILING_COMMAND_START)
                .saturating_sub(time(event, CL_PROFILING_COMMAND_QUEUED));
            total += waited as f64;
        }
        // SAFETY: the event returned above, released once.
        unsafe { entry!(api.clReleaseEvent)(event) };
    }
    // SAFETY: the queue made above, released once.
    unsafe { entry!(api.clReleaseCommandQueue)(queue) };
    result.map(|()| total / count as f64 / 1e3)
}

/// Nanoseconds per work-group of one launch of `groups` groups of `items` work-items each
/// (the best of three, after a launch outside the timing).
fn group_cost(d: &Driver, k: cl_kernel, items: usize, groups: usize) -> Result<f64, String> {
    let mut best = f64::INFINITY;
    for round in 0..4 {
        let start = Instant::now();
        enqueue_sized(d, k, items * groups, Some(items))?;
        d.finish();
        if round > 0 {
            best = best.min(start.elapsed().as_secs_f64());
        }
    }
    Ok(best * 1e9 / groups as f64)
}

/// A burst of [`BURST`] launches of a one-item kernel: the enqueue calls' time per kernel
/// (µs), and kernels per second from the first enqueue to `clFinish`.
fn burst(d: &Driver) -> Result<(f64, f64), String> {
    let bench = Bench::build(d, SOURCE)?;
    let k = bench.kernel("tiny")?;
    let buffer = d.buffer(4)?;
    bench.arg(k, 0, &buffer);
    enqueue(d, k, 1)?;
    d.finish();
    let start = Instant::now();
    for _ in 0..BURST {
        enqueue(d, k, 1)?;
    }
    let enqueued = start.elapsed().as_secs_f64();
    d.finish();
    let total = start.elapsed().as_secs_f64();
    d.release_kernel(k);
    d.release(buffer);
    Ok((enqueued * 1e6 / BURST as f64, BURST as f64 / total))
}

fn enqueue(d: &Driver, k: cl_kernel, items: usize) -> Result<(), String> {
    enqueue_sized(d, k, items, None)
}

/// Enqueues a one-dimensional range of `items` work-items, in groups of `local` if given.
fn enqueue_sized(
    d: &Driver,
    k: cl_kernel,
    items: usize,
    local: Option<usize>,
) -> Result<(), String> {
    let api = &d.api;
    let global = [items];
    let local = local.map(|l| [l]);
    // SAFETY: a one-dimensional range; the queue is the driver's; no events.
    let status = unsafe {
        entry!(api.clEnqueueNDRangeKernel)(
            d.queue,
            k,
            1,
            null(),
            global.as_ptr(),
            local.as_ref().map_or(null(), |l| l.as_ptr()),
            0,
            null(),
            null_mut(),
        )
    };
    if status == CL_SUCCESS {
        Ok(())
    } else {
        Err(format!("clEnqueueNDRangeKernel: {status}"))
    }
}
