//! Kernel figures: time from `clBuildProgram` to the first result, and throughput of
//! common kernels, for every driver in the same run.

use std::ffi::CString;
use std::ptr::{null, null_mut};
use std::time::Instant;

use clift_conformance::entry;
use opencl_sys::*;

use crate::Effort;
use crate::driver::{Driver, per_driver};
use crate::report::{Better, Table};

const BUILD: &str = "Kernels: time from clBuildProgram to the first result";
const THROUGHPUT: &str = "Kernels: throughput";

/// The kernels measured, in one program source.
const SOURCE: &str = concat!(
    include_str!("../../../../compiler/tests/bench_kernels.cl"),
    include_str!("../../../../compiler/tests/bench_raytrace.cl"),
);

/// A program, its kernels, and the buffers of one driver.
pub(crate) struct Bench<'a> {
    d: &'a Driver,
    program: cl_program,
}

impl<'a> Bench<'a> {
    pub(crate) fn build(d: &'a Driver, source: &str) -> Result<Bench<'a>, String> {
        Bench::build_with(d, source, "")
    }

    /// `build` with build options (clpeak's kernels are built with `-cl-mad-enable`).
    pub(crate) fn build_with(
        d: &'a Driver,
        source: &str,
        options: &str,
    ) -> Result<Bench<'a>, String> {
        let api = &d.api;
        let options = CString::new(options).map_err(|e| e.to_string())?;
        let text = CString::new(source).map_err(|e| e.to_string())?;
        let mut status = CL_SUCCESS;
        let mut ptr = text.as_ptr();
        // SAFETY: one NUL-terminated string.
        let program = unsafe {
            entry!(api.clCreateProgramWithSource)(d.context, 1, &mut ptr, null(), &mut status)
        };
        if status != CL_SUCCESS {
            return Err(format!("clCreateProgramWithSource: {status}"));
        }
        // SAFETY: a valid program, NUL-terminated options, no callback.
        let status = unsafe {
            entry!(api.clBuildProgram)(program, 0, null(), options.as_ptr(), None, null_mut())
        };
        if status != CL_SUCCESS {
            return Err(format!("clBuildProgram: {status}"));
        }
        Ok(Bench { d, program })
    }

    /// The driver the program was built on.
    pub(crate) fn driver(&self) -> &'a Driver {
        self.d
    }

    pub(crate) fn kernel(&self, name: &str) -> Result<cl_kernel, String> {
        let api = &self.d.api;
        let name = CString::new(name).map_err(|e| e.to_string())?;
        let mut status = CL_SUCCESS;
        // SAFETY: a built program and a NUL-terminated name.
        let k = unsafe { entry!(api.clCreateKernel)(self.program, name.as_ptr(), &mut status) };
        if status == CL_SUCCESS {
            Ok(k)
        } else {
            Err(format!("clCreateKernel: {status}"))
        }
    }

    /// Sets argument `i` to the bytes of `value` (or local memory of `local` bytes).
    pub(crate) fn arg<T>(&self, k: cl_kernel, i: u32, value: &T) {
        let api = &self.d.api;
        // SAFETY: `value` is `size_of::<T>()` bytes.
        unsafe { entry!(api.clSetKernelArg)(k, i, size_of::<T>(), (value as *const T).cast()) };
    }

    pub(crate) fn local_arg(&self, k: cl_kernel, i: u32, bytes: usize) {
        let api = &self.d.api;
        // SAFETY: a local argument: size and NULL.
        unsafe { entry!(api.clSetKernelArg)(k, i, bytes, null()) };
    }

    /// Enqueues and waits for a 1D or 2D range.
    pub(crate) fn run(
        &self,
        k: cl_kernel,
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Result<(), String> {
        let enqueued = self.enqueue(k, global, local);
        self.d.finish();
        enqueued
    }

    /// The mean time of `n` launches of a range enqueued back to back and waited for once,
    /// as clpeak times its kernels: its clock around the loop of enqueues, each followed
    /// by `clFlush`, and the finish.
    pub(crate) fn mean_of_back_to_back(
        &self,
        k: cl_kernel,
        global: &[usize],
        local: Option<&[usize]>,
        n: usize,
    ) -> Result<f64, String> {
        let n = n.max(1);
        let start = Instant::now();
        let enqueued = (0..n).try_for_each(|_| {
            self.enqueue(k, global, local)?;
            self.d.flush();
            Ok::<(), String>(())
        });
        self.d.finish();
        enqueued.map(|()| start.elapsed().as_secs_f64() / n as f64)
    }

    /// Enqueues a 1D or 2D range without waiting for it.
    fn enqueue(
        &self,
        k: cl_kernel,
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Result<(), String> {
        let api = &self.d.api;
        // SAFETY: arrays of `global.len()` sizes; the queue is the driver's.
        let status = unsafe {
            entry!(api.clEnqueueNDRangeKernel)(
                self.d.queue,
                k,
                global.len() as u32,
                null(),
                global.as_ptr(),
                local.map_or(null(), |l| l.as_ptr()),
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
}

impl Drop for Bench<'_> {
    fn drop(&mut self) {
        let api = &self.d.api;
        // SAFETY: the program this bench built.
        unsafe { entry!(api.clReleaseProgram)(self.program) };
    }
}

/// A larger real-world-style program (the frontend corpus's sphere ray tracer and neural
/// network layers: structs, user functions, loops, vectors; 210 lines, 6 kernels).
const LARGE_SOURCE: &str = concat!(
    include_str!("../../../../compiler/tests/corpus/raytrace_spheres.cl"),
    include_str!("../../../../compiler/tests/corpus/nn_layers.cl"),
);

/// Seconds to build `LARGE_SOURCE`, create every kernel in it and get a first result from
/// one (`activation`): PoCL finishes code generation at a kernel's first launch, so the
/// launch is part of a fair build time.
fn large_build(d: &Driver) -> Result<f64, String> {
    let start = Instant::now();
    let bench = Bench::build(d, LARGE_SOURCE)?;
    let mut activation = None;
    for name in [
        "render",
        "softmax_rows",
        "layer_norm",
        "maxpool2x2",
        "dot_int8",
        "activation",
    ] {
        let k = bench.kernel(name)?;
        if name == "activation" {
            activation = Some(k);
        } else {
            d.release_kernel(k);
        }
    }
    let k = activation.ok_or("no activation kernel")?;
    let n = 1024;
    let x = d.buffer(n * 4)?;
    bench.arg(k, 0, &x);
    bench.arg(k, 1, &1i32);
    bench.run(k, &[n], None)?;
    let mut out = vec![0u8; 4];
    d.read(x, &mut out);
    let t = start.elapsed().as_secs_f64();
    d.release(x);
    d.release_kernel(k);
    Ok(t)
}

/// Seconds to build `SOURCE`, create `vadd` and get its first result.
fn first_result(d: &Driver) -> Result<f64, String> {
    let start = Instant::now();
    let bench = Bench::build(d, SOURCE)?;
    let k = bench.kernel("vadd")?;
    let n = 1024;
    let (a, b, c) = (d.buffer(n * 4)?, d.buffer(n * 4)?, d.buffer(n * 4)?);
    for (i, m) in [a, b, c].iter().enumerate() {
        bench.arg(k, i as u32, m);
    }
    bench.run(k, &[n], None)?;
    let mut out = vec![0u8; 4];
    d.read(c, &mut out);
    let t = start.elapsed().as_secs_f64();
    for m in [a, b, c] {
        d.release(m);
    }
    Ok(t)
}

pub fn run(drivers: &[Driver], effort: Effort, table: &mut Table) {
    let per = |f: &dyn Fn(&Driver) -> Result<f64, String>| per_driver(drivers, f);
    // The best of three builds (each a fresh program; PoCL's cache is off).
    let fastest = |f: fn(&Driver) -> Result<f64, String>, d: &Driver| -> Result<f64, String> {
        (0..3).try_fold(f64::INFINITY, |best, _| Ok(best.min(f(d)?)))
    };
    let build = per(&|d| fastest(first_result, d).map(|t| t * 1e3));
    table.add(
        BUILD,
        "this bench's program (10 kernels, 118 lines): build + first vadd (best of 3)",
        "ms",
        Better::Lower,
        build,
        None,
    );
    let large = per(&|d| fastest(large_build, d).map(|t| t * 1e3));
    table.add(
        BUILD,
        "6 kernels, 210 lines (ray tracer, NN layers): build + first result (best of 3)",
        "ms",
        Better::Lower,
        large,
        None,
    );

    let n = effort.bandwidth_bytes / 4 / 4;
    let reps = effort.bandwidth_repeats;
    // Memory-bound kernels: GB/s of data touched.
    let vadd = per(&|d| three_arrays(d, "vadd", n, reps, None));
    table.add(
        THROUGHPUT,
        format!("vector add, {} M floats", n >> 20),
        "GB/s",
        Better::Higher,
        vadd,
        None,
    );
    let reduce = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("reduce")?;
        let group = 256;
        let (input, out) = (d.buffer(n * 4)?, d.buffer(n / group * 4)?);
        bench.arg(k, 0, &input);
        bench.arg(k, 1, &out);
        bench.local_arg(k, 2, group * 4);
        bench.run(k, &[n], Some(&[group]))?;
        let t = best(reps, || bench.run(k, &[n], Some(&[group])))?;
        d.release(input);
        d.release(out);
        Ok((n * 4) as f64 / t / 1e9)
    });
    let triad = per(&|d| three_arrays(d, "triad", n, reps, Some(3.0)));
    table.add(
        THROUGHPUT,
        format!("triad a = b + s * c, {} M floats", n >> 20),
        "GB/s",
        Better::Higher,
        triad,
        None,
    );
    table.add(
        THROUGHPUT,
        "reduction (local memory, barriers)",
        "GB/s",
        Better::Higher,
        reduce,
        None,
    );
    // Compute-bound kernels: GFLOP/s.
    let dim = if effort.bandwidth_bytes >= 256 << 20 {
        512
    } else {
        256
    };
    for (name, label, local) in [
        ("sgemm_naive", "SGEMM naive", None),
        (
            "sgemm_tiled",
            "SGEMM tiled 16x16 (barriers)",
            Some([16usize, 16]),
        ),
    ] {
        let gflops = per(&|d| {
            let bench = Bench::build(d, SOURCE)?;
            let k = bench.kernel(name)?;
            let bytes = dim * dim * 4;
            let (a, b, c) = (d.buffer(bytes)?, d.buffer(bytes)?, d.buffer(bytes)?);
            for (i, m) in [a, b, c].iter().enumerate() {
                bench.arg(k, i as u32, m);
            }
            bench.arg(k, 3, &(dim as i32));
            let l = local.as_ref().map(|l| &l[..]);
            bench.run(k, &[dim, dim], l)?;
            let t = best(reps.min(3), || bench.run(k, &[dim, dim], l))?;
            for m in [a, b, c] {
                d.release(m);
            }
            Ok(2.0 * (dim * dim * dim) as f64 / t / 1e9)
        });
        table.add(
            THROUGHPUT,
            format!("{label}, {dim}x{dim}"),
            "GFLOP/s",
            Better::Higher,
            gflops,
            None,
        );
    }
    let bodies = if effort.bandwidth_bytes >= 256 << 20 {
        16384
    } else {
        4096
    };
    let nbody = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("nbody")?;
        let pos: Vec<f32> = (0..bodies * 4)
            .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
            .collect();
        let (p, acc) = (d.buffer_from(&pos)?, d.buffer(bodies * 16)?);
        bench.arg(k, 0, &p);
        bench.arg(k, 1, &acc);
        bench.arg(k, 2, &(bodies as i32));
        bench.arg(k, 3, &1e-3f32);
        bench.run(k, &[bodies], None)?;
        let t = best(reps.min(3), || bench.run(k, &[bodies], None))?;
        d.release(p);
        d.release(acc);
        // The customary 20 flops per interaction (rsqrt counted as one).
        Ok(20.0 * (bodies * bodies) as f64 / t / 1e9)
    });
    table.add(
        THROUGHPUT,
        format!("n-body, {bodies} bodies, all pairs"),
        "GFLOP/s",
        Better::Higher,
        nbody,
        None,
    );
    let (w, h) = (2048usize, 1024usize);
    let conv = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("conv2d")?;
        let weights = [1.0f32 / 25.0; 25];
        let (input, out, wb) = (
            d.buffer(w * h * 4)?,
            d.buffer(w * h * 4)?,
            d.buffer_from(&weights)?,
        );
        bench.arg(k, 0, &input);
        bench.arg(k, 1, &out);
        bench.arg(k, 2, &wb);
        bench.arg(k, 3, &(w as i32));
        bench.arg(k, 4, &(h as i32));
        bench.run(k, &[w, h], None)?;
        let t = best(reps.min(3), || bench.run(k, &[w, h], None))?;
        for m in [input, out, wb] {
            d.release(m);
        }
        Ok((w * h) as f64 / t / 1e6)
    });
    table.add(
        THROUGHPUT,
        format!("2D convolution 5x5, {w}x{h}"),
        "Mpixel/s",
        Better::Higher,
        conv,
        None,
    );
    let (rw, rh) = (1024usize, 768usize);
    let rays = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("raytrace")?;
        let mut spheres = Vec::new();
        for s in 0..24 {
            let a = s as f32 * 0.7;
            spheres.extend_from_slice(&[a.cos() * 2.5, a.sin() * 1.5, 2.0 + (s % 5) as f32, 0.6]);
            spheres.extend_from_slice(&[
                0.3 + (s % 3) as f32 * 0.3,
                0.5,
                0.9 - (s % 4) as f32 * 0.2,
                0.0,
            ]);
        }
        let (img, sb) = (d.buffer(rw * rh * 4)?, d.buffer_from(&spheres)?);
        bench.arg(k, 0, &sb);
        bench.arg(k, 1, &img);
        bench.arg(k, 2, &24i32);
        bench.arg(k, 3, &(rw as i32));
        bench.arg(k, 4, &(rh as i32));
        bench.run(k, &[rw, rh], None)?;
        let t = best(reps.min(3), || bench.run(k, &[rw, rh], None))?;
        d.release(img);
        d.release(sb);
        Ok((rw * rh) as f64 / t / 1e6)
    });
    table.add(
        THROUGHPUT,
        format!("ray tracer {rw}x{rh}, 24 spheres, shadows"),
        "Mpixel/s",
        Better::Higher,
        rays,
        None,
    );
    let mandel = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("mandelbrot")?;
        let (w, h) = (1024usize, 768usize);
        let out = d.buffer(w * h * 4)?;
        bench.arg(k, 0, &out);
        bench.arg(k, 1, &(w as i32));
        bench.arg(k, 2, &(h as i32));
        bench.arg(k, 3, &256i32);
        bench.run(k, &[w, h], None)?;
        let t = best(reps.min(3), || bench.run(k, &[w, h], None))?;
        d.release(out);
        Ok((w * h) as f64 / t / 1e6)
    });
    table.add(
        THROUGHPUT,
        "Mandelbrot 1024x768, 256 iterations",
        "Mpixel/s",
        Better::Higher,
        mandel,
        None,
    );
    crate::pixels::run(drivers, reps, THROUGHPUT, table);
    crate::math::run(drivers, reps, THROUGHPUT, table);
}

/// GB/s of a kernel over three arrays of `n` floats (two read, one written), with a float
/// fourth argument if given.
pub(crate) fn three_arrays(
    d: &Driver,
    name: &str,
    n: usize,
    reps: usize,
    scalar: Option<f32>,
) -> Result<f64, String> {
    let bench = Bench::build(d, SOURCE)?;
    let k = bench.kernel(name)?;
    // Buffers filled from the host: a buffer no one has written may be pages the system has
    // not handed out yet, and reading those reads one shared zero page (which stays in the
    // cache), not memory.
    let host: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let (a, b, c) = (
        d.buffer_from(&host)?,
        d.buffer_from(&host)?,
        d.buffer_from(&host)?,
    );
    drop(host);
    for (i, m) in [a, b, c].iter().enumerate() {
        bench.arg(k, i as u32, m);
    }
    if let Some(s) = scalar {
        bench.arg(k, 3, &s);
    }
    bench.run(k, &[n], None)?;
    let t = best(reps, || bench.run(k, &[n], None))?;
    // vadd's c = a + b is 2x, triad's a = b + s c is (1 + s)x, of each element x.
    let (out, times) = match scalar {
        None => (c, 2.0),
        Some(s) => (a, 1.0 + s),
    };
    let mut first = vec![0u8; n.min(1024) * 4];
    let read = d.read(out, &mut first);
    for m in [a, b, c] {
        d.release(m);
    }
    if read != CL_SUCCESS {
        return Err(format!("clEnqueueReadBuffer: {read}"));
    }
    let wrong = first
        .chunks_exact(4)
        .enumerate()
        .find(|&(i, v)| f32::from_ne_bytes(v.try_into().unwrap()) != times * (i % 7) as f32);
    if let Some((i, _)) = wrong {
        return Err(format!("{name} computed a wrong element {i}"));
    }
    Ok((3 * n * 4) as f64 / t / 1e9)
}

/// The fastest of `reps` runs of `f`, in seconds.
pub(crate) fn best(reps: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    let mut fastest = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        f()?;
        fastest = fastest.min(start.elapsed().as_secs_f64());
    }
    Ok(fastest)
}
