//! An 8-bit image kernel (planar RGB bytes to gray bytes, saturating), for every driver in
//! the same run: the `char`/`short` path of clift's work-item vectorizer
//! (compiler/src/codegen/simd/narrow.rs) against PoCL's.

use crate::driver::{Driver, per_driver};
use crate::kernels::{Bench, best};
use crate::report::{Better, Table};

const SOURCE: &str = r#"
kernel void gray(global const uchar *r, global const uchar *g, global const uchar *b,
                 global uchar *out) {
    size_t i = get_global_id(0);
    out[i] = convert_uchar_sat(0.299f * r[i] + 0.587f * g[i] + 0.114f * b[i] + 0.5f);
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
}
