//! Kernels whose time goes into the transcendental builtins, for every driver in the same
//! run: Black-Scholes option pricing (`exp`, `log`, `sqrt`) and a wave field (`sin`, `cos`,
//! `pow`). In clift's vectorized row each such call is one call per register of four
//! work-items (builtins/src/math/lanes.rs); the other kernels of the table call none.

use crate::driver::{Driver, per_driver};
use crate::kernels::{Bench, best};
use crate::report::{Better, Table};

const SOURCE: &str = r#"
// The normal distribution's CDF (Abramowitz and Stegun 26.2.17), as a macro: clift's
// vectorized row calls a user function once per work-item, which would hide the builtins.
#define CND(d, out) { \
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d)); \
    float poly = k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f \
               + k * (-1.821255978f + k * 1.330274429f)))); \
    float c = 0.39894228f * exp(-0.5f * (d) * (d)) * poly; \
    out = (d) > 0.0f ? 1.0f - c : c; \
}

kernel void black_scholes(global float *call, global float *put, global const float *price,
                          global const float *strike, global const float *years, float rate,
                          float vol) {
    size_t i = get_global_id(0);
    float s = price[i], x = strike[i], t = years[i];
    float root = sqrt(t);
    float d1 = (log(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * root);
    float d2 = d1 - vol * root;
    float discount = x * exp(-rate * t);
    float n1, n2;
    CND(d1, n1);
    CND(d2, n2);
    call[i] = s * n1 - discount * n2;
    put[i] = discount * (1.0f - n2) - s * (1.0f - n1);
}

kernel void waves(global float *out, global const float *a, global const float *b) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    out[i] = sin(x) * cos(y) + pow(y, 1.5f) * 0.01f;
}
"#;

/// Adds the rows: million options per second of `black_scholes` and million elements per
/// second of `waves`, each over 1 M elements of fixed pseudo-random arguments.
pub fn run(drivers: &[Driver], reps: usize, section: &'static str, table: &mut Table) {
    let n = 1usize << 20;
    // Arguments in each function's usual range, from a fixed sequence.
    let fill = |seed: u64, lo: f32, hi: f32| -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
            })
            .collect()
    };
    let (price, strike, years) = (fill(1, 5.0, 30.0), fill(2, 1.0, 100.0), fill(3, 0.25, 10.0));
    let options = per_driver(drivers, &|d| {
        let inputs: [&[f32]; 3] = [&price, &strike, &years];
        rate(d, "black_scholes", 2, &inputs, &[0.02, 0.30], reps)
    });
    table.add(
        section,
        "Black-Scholes (exp, log, sqrt), 1 M options",
        "Moptions/s",
        Better::Higher,
        options,
        None,
    );
    let (a, b) = (fill(4, -100.0, 100.0), fill(5, 0.0, 50.0));
    let waves = per_driver(drivers, &|d| rate(d, "waves", 1, &[&a, &b], &[], reps));
    table.add(
        section,
        "sin(x)·cos(y) + pow(y, 1.5), 1 M floats",
        "M/s",
        Better::Higher,
        waves,
        None,
    );
}

/// Millions of work-items per second of `kernel` over as many work-items as the `inputs`
/// have elements: its arguments are `outputs` float buffers, then the inputs' buffers, then
/// the `float` scalars.
fn rate(
    d: &Driver,
    kernel: &str,
    outputs: usize,
    inputs: &[&[f32]],
    scalars: &[f32],
    reps: usize,
) -> Result<f64, String> {
    let n = inputs[0].len();
    let bench = Bench::build(d, SOURCE)?;
    let k = bench.kernel(kernel)?;
    let mut mems = Vec::new();
    for _ in 0..outputs {
        mems.push(d.buffer(n * 4)?);
    }
    for data in inputs {
        mems.push(d.buffer_from(data)?);
    }
    for (i, m) in mems.iter().enumerate() {
        bench.arg(k, i as u32, m);
    }
    for (i, v) in scalars.iter().enumerate() {
        bench.arg(k, (mems.len() + i) as u32, v);
    }
    bench.run(k, &[n], None)?;
    let t = best(reps, || bench.run(k, &[n], None))?;
    for m in mems {
        d.release(m);
    }
    Ok(n as f64 / t / 1e6)
}
