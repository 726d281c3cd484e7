//! Explicit vector types: clpeak's `compute_sp_v4` and `compute_integer_v4` (float4 / int4
//! multiply-add chains) and a float4 kernel with barriers. Run with `CLIFT_VECTORIZE=0` to
//! measure clift's scalar code path (where `float4` values live in vector registers, or
//! lane by lane with `CLIFT_VECTOR_REGISTERS=0`).

use crate::Effort;
use crate::driver::{Driver, per_driver};
use crate::kernels::{Bench, best};
use crate::report::{Better, Table};

const SECTION: &str = "Kernels: explicit vector types (float4, int4)";

/// clpeak's multiply-add chains (compute_sp_kernels.cl, compute_integer_kernels.cl), for
/// this section's kernels and clpeak.rs's.
macro_rules! mad_macros {
    () => {
        r#"
#define MAD_4(x, y)  x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define MAD_16(x, y) MAD_4(x, y); MAD_4(x, y); MAD_4(x, y); MAD_4(x, y);
#define MAD_64(x, y) MAD_16(x, y); MAD_16(x, y); MAD_16(x, y); MAD_16(x, y);
#define IMAD_4(x, y)  x = (y * x) + y; y = (x * y) + x; x = (y * x) + y; y = (x * y) + x;
#define IMAD_16(x, y) IMAD_4(x, y); IMAD_4(x, y); IMAD_4(x, y); IMAD_4(x, y);
#define IMAD_64(x, y) IMAD_16(x, y); IMAD_16(x, y); IMAD_16(x, y); IMAD_16(x, y);
"#
    };
}
pub(crate) use mad_macros;

/// clpeak's kernels (compute_sp_kernels.cl, compute_integer_kernels.cl), and a float4
/// stencil whose multiply-adds sit between barriers.
const SOURCE: &str = concat!(
    mad_macros!(),
    r#"

kernel void compute_sp_v4(global float *ptr, float _A) {
    float4 x = (float4)(_A, (_A + 1), (_A + 2), (_A + 3));
    float4 y = (float4)get_local_id(0);
    for (int i = 0; i < 32; i++) {
        MAD_64(x, y);
    }
    ptr[get_global_id(0)] = (y.S0) + (y.S1) + (y.S2) + (y.S3);
}

kernel void compute_integer_v4(global int *ptr, int _A) {
    int4 x = (int4)(_A, (_A + 1), (_A + 2), (_A + 3));
    int4 y = (int4)get_local_id(0);
    for (int i = 0; i < 32; i++) {
        IMAD_64(x, y);
    }
    ptr[get_global_id(0)] = (y.S0) + (y.S1) + (y.S2) + (y.S3);
}

kernel void stencil_v4(global const float4 *in, global float4 *out, local float4 *tile) {
    size_t l = get_local_id(0), g = get_global_id(0), n = get_local_size(0);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 x = tile[l], y = tile[(l + 1) % n];
    for (int i = 0; i < 16; i++) {
        MAD_16(x, y);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[l] = x + y;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tile[(l + n - 1) % n];
}
"#
);

/// Work-items of each run.
fn items(effort: Effort) -> usize {
    if effort.bandwidth_bytes >= 256 << 20 {
        1 << 18
    } else {
        1 << 16
    }
}

/// Giga-operations per second of `name` over `n` items (`ops` per item), with a scalar
/// second argument.
fn compute<T>(
    d: &Driver,
    name: &str,
    n: usize,
    ops: f64,
    scalar: T,
    reps: usize,
) -> Result<f64, String> {
    let bench = Bench::build(d, SOURCE)?;
    let k = bench.kernel(name)?;
    let out = d.buffer(n * 4)?;
    bench.arg(k, 0, &out);
    bench.arg(k, 1, &scalar);
    bench.run(k, &[n], Some(&[64]))?;
    let t = best(reps, || bench.run(k, &[n], Some(&[64])))?;
    d.release(out);
    Ok(n as f64 * ops / t / 1e9)
}

pub fn run(drivers: &[Driver], effort: Effort, table: &mut Table) {
    let n = items(effort);
    let reps = effort.bandwidth_repeats;
    // 32 × 64 multiply-adds of 4 lanes: 2 operations each.
    let ops = (32 * 64 * 4 * 2) as f64;
    let sp = per_driver(drivers, &|d| {
        compute(d, "compute_sp_v4", n, ops, 1.3f32, reps)
    });
    table.add(
        SECTION,
        "clpeak compute_sp_v4 (float4 mad)",
        "GFLOP/s",
        Better::Higher,
        sp,
        None,
    );
    let int = per_driver(drivers, &|d| {
        compute(d, "compute_integer_v4", n, ops, 3i32, reps)
    });
    table.add(
        SECTION,
        "clpeak compute_integer_v4 (int4 mul, add)",
        "GIOP/s",
        Better::Higher,
        int,
        None,
    );
    let stencil = per_driver(drivers, &|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("stencil_v4")?;
        let input: Vec<f32> = (0..n * 4).map(|i| (i % 97) as f32 / 97.0).collect();
        let (a, b) = (d.buffer_from(&input)?, d.buffer(n * 16)?);
        bench.arg(k, 0, &a);
        bench.arg(k, 1, &b);
        let group = 64;
        bench.local_arg(k, 2, group * 16);
        bench.run(k, &[n], Some(&[group]))?;
        let t = best(reps, || bench.run(k, &[n], Some(&[group])))?;
        d.release(a);
        d.release(b);
        // 16 × 16 multiply-adds of 4 lanes, and one add.
        Ok(n as f64 * (16 * 16 * 4 * 2 + 4) as f64 / t / 1e9)
    });
    table.add(
        SECTION,
        "float4 stencil between barriers",
        "GFLOP/s",
        Better::Higher,
        stencil,
        None,
    );
}
