//! 8-bit image kernels, for every driver in the same run: planar RGB bytes to gray bytes
//! (the `char`/`short` scalars of clift's work-item vectorizer,
//! compiler/src/codegen/simd/narrow.rs) and RGBA `uchar4` pixels through brightness and
//! contrast (its vectors of them, narrow_vec.rs), against PoCL's.

use crate::driver::{Driver, per_driver};
use crate::kernels::{Bench, best};
use crate::report::{Better, Table};

const SOURCE: &str = r#"
kernel void gray(global const uchar *r, global const uchar *g, global const uchar *b,
                 global uchar *out) {
    size_t i = get_global_id(0);
    out[i] = convert_uchar_sat(0.299f * r[i] + 0.587f * g[i] + 0.114f * b[i] + 0.5f);
}

kernel void rgba(global const uchar4 *in, global uchar4 *out, float gain, float bias) {
    size_t i = get_global_id(0);
    uchar4 p = in[i];
    float4 f = convert_float4(p) * gain + bias;
    out[i] = (uchar4)(convert_uchar3_sat_rte(f.xyz), p.w);
}
"#;

/// Adds the row: Mpixel/s of `gray` over a 4096x2048 image (4 bytes moved per pixel).
pub fn run(drivers: &[Driver], reps: usize, section: &'static str, table: &mut Table) {
    let (w, h) = (4096usize, 2048usize);
    let n = w * h;
    let gray = per_driver(drivers, &|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("gray")?;
        let planes = [d.buffer(n)?, d.buffer(n)?, d.buffer(n)?, d.buffer(n)?];
        for (i, m) in planes.iter().enumerate() {
            bench.arg(k, i as u32, m);
        }
        bench.run(k, &[n], None)?;
        let t = best(reps, || bench.run(k, &[n], None))?;
        for m in planes {
            d.release(m);
        }
        Ok(n as f64 / t / 1e6)
    });
    table.add(
        section,
        format!("RGB bytes to gray bytes (uchar, saturating), {w}x{h}"),
        "Mpixel/s",
        Better::Higher,
        gray,
        None,
    );
    let rgba = per_driver(drivers, &|d| {
        let bench = Bench::build(d, SOURCE)?;
        let k = bench.kernel("rgba")?;
        let (input, output) = (d.buffer(4 * n)?, d.buffer(4 * n)?);
        // Real pixels (not the zero page a buffer without data reads).
        let pixels: Vec<u8> = (0..4 * n).map(|i| (i * 37 % 251) as u8).collect();
        if d.write(input, &pixels, true) != 0 {
            return Err("writing the pixels failed".into());
        }
        bench.arg(k, 0, &input);
        bench.arg(k, 1, &output);
        bench.arg(k, 2, &1.25f32);
        bench.arg(k, 3, &-10.0f32);
        bench.run(k, &[n], None)?;
        let t = best(reps, || bench.run(k, &[n], None))?;
        d.release(input);
        d.release(output);
        Ok(n as f64 / t / 1e6)
    });
    table.add(
        section,
        format!("RGBA uchar4 brightness/contrast (saturating), {w}x{h}"),
        "Mpixel/s",
        Better::Higher,
        rgba,
        None,
    );
}
