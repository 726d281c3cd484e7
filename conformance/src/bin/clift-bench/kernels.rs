//! Kernel figures: time from `clBuildProgram` to the first result, and throughput of
//! common kernels, for every driver in the same run.

use std::ffi::CString;
use std::ptr::{null, null_mut};
use std::time::Instant;

use clift_conformance::entry;
use opencl_sys::*;

use crate::Effort;
use crate::driver::Driver;
use crate::report::{Better, Table};

const BUILD: &str = "Kernels: time from clBuildProgram to the first result";
const THROUGHPUT: &str = "Kernels: throughput";

/// The kernels measured, in one program source.
const SOURCE: &str = r#"
kernel void vadd(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
kernel void saxpy(global const float *x, global float *y, float alpha) {
    size_t i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}
kernel void sgemm_naive(global const float *a, global const float *b, global float *c, int n) {
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
#define TILE 16
kernel void sgemm_tiled(global const float *a, global const float *b, global float *c, int n) {
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
kernel void mandelbrot(global int *out, int width, int height, int max_iter) {
    int x = get_global_id(0), y = get_global_id(1);
    float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / height;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    while (i < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        i++;
    }
    out[y * width + x] = i;
}
"#;

/// A program, its kernels, and the buffers of one driver.
struct Bench<'a> {
    d: &'a Driver,
    program: cl_program,
}

impl<'a> Bench<'a> {
    fn build(d: &'a Driver, source: &str) -> Result<Bench<'a>, String> {
        let api = &d.api;
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
        // SAFETY: a valid program; no options, no callback.
        let status =
            unsafe { entry!(api.clBuildProgram)(program, 0, null(), null(), None, null_mut()) };
        if status != CL_SUCCESS {
            return Err(format!("clBuildProgram: {status}"));
        }
        Ok(Bench { d, program })
    }

    fn kernel(&self, name: &str) -> Result<cl_kernel, String> {
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
    fn arg<T>(&self, k: cl_kernel, i: u32, value: &T) {
        let api = &self.d.api;
        // SAFETY: `value` is `size_of::<T>()` bytes.
        unsafe { entry!(api.clSetKernelArg)(k, i, size_of::<T>(), (value as *const T).cast()) };
    }

    fn local_arg(&self, k: cl_kernel, i: u32, bytes: usize) {
        let api = &self.d.api;
        // SAFETY: a local argument: size and NULL.
        unsafe { entry!(api.clSetKernelArg)(k, i, bytes, null()) };
    }

    /// Enqueues and waits for a 1D or 2D range.
    fn run(&self, k: cl_kernel, global: &[usize], local: Option<&[usize]>) -> Result<(), String> {
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
        self.d.finish();
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
    let api = &d.api;
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
            // SAFETY: a kernel this bench created.
            unsafe { entry!(api.clReleaseKernel)(k) };
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
    // SAFETY: a kernel this bench created.
    unsafe { entry!(api.clReleaseKernel)(k) };
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
    let per = |f: &dyn Fn(&Driver) -> Result<f64, String>| -> Vec<Option<f64>> {
        drivers
            .iter()
            .map(|d| {
                f(d).map_err(|e| eprintln!("clift-bench: {}: {e}", d.name))
                    .ok()
            })
            .collect()
    };
    let build = per(&|d| first_result(d).map(|t| t * 1e3));
    table.add(
        BUILD,
        "6 kernels, 70 lines: build + first vadd",
        "ms",
        Better::Lower,
        build,
        None,
    );
    let large = per(&|d| large_build(d).map(|t| t * 1e3));
    table.add(
        BUILD,
        "6 kernels, 210 lines (ray tracer, NN layers): build + first result",
        "ms",
        Better::Lower,
        large,
        None,
    );

    let n = effort.bandwidth_bytes / 4 / 4;
    let reps = effort.bandwidth_repeats;
    // Memory-bound kernels: GB/s of data touched.
    let vadd = per(&|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("vadd")?;
        let (a, b, c) = (d.buffer(n * 4)?, d.buffer(n * 4)?, d.buffer(n * 4)?);
        for (i, m) in [a, b, c].iter().enumerate() {
            bench.arg(k, i as u32, m);
        }
        bench.run(k, &[n], None)?;
        let t = best(reps, || bench.run(k, &[n], None))?;
        for m in [a, b, c] {
            d.release(m);
        }
        Ok((3 * n * 4) as f64 / t / 1e9)
    });
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
}

/// The fastest of `reps` runs of `f`, in seconds.
fn best(reps: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    let mut fastest = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        f()?;
        fastest = fastest.min(start.elapsed().as_secs_f64());
    }
    Ok(fastest)
}
