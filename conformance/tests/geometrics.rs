//! The `geometrics` suite (6.12.5): `dot`, `cross`, `distance`, `length`, `normalize` and
//! the `fast_` forms for float and double at 1 to 4 lanes, against a double-precision
//! host reference within the bounds of section 7.4: `dot` within max² · (2n − 1) · ε,
//! `cross` within max² · 3 · ε per lane, `length` within 0.25 + 0.5n ulp, `distance`
//! within 2.5 + 2n ulp, `normalize` within 2 + n ulp per lane; the `fast_` forms within
//! 8192 ulp (they may use `half_sqrt`/`half_rsqrt`).

use std::ffi::CString;

use clift_conformance::kernel_fixture::*;

#[derive(Clone, Copy)]
enum Bound {
    /// max(|inputs|)^2 * k * epsilon, absolute.
    Products(f64),
    /// a + b * n ulp of the result.
    Ulp(f64, f64),
}

struct Case {
    name: &'static str,
    /// Lane counts it takes (cross: 3 and 4).
    widths: &'static [usize],
    two_args: bool,
    /// The result is a vector of the argument's width (cross, normalize).
    vector_result: bool,
    bound: Bound,
}

fn cases() -> Vec<Case> {
    let all: &'static [usize] = &[1, 2, 3, 4];
    vec![
        Case {
            name: "dot",
            widths: all,
            two_args: true,
            vector_result: false,
            bound: Bound::Products(0.0),
        },
        Case {
            name: "cross",
            widths: &[3, 4],
            two_args: true,
            vector_result: true,
            bound: Bound::Products(3.0),
        },
        Case {
            name: "length",
            widths: all,
            two_args: false,
            vector_result: false,
            bound: Bound::Ulp(0.25, 0.5),
        },
        Case {
            name: "distance",
            widths: all,
            two_args: true,
            vector_result: false,
            bound: Bound::Ulp(2.5, 2.0),
        },
        Case {
            name: "normalize",
            widths: all,
            two_args: false,
            vector_result: true,
            bound: Bound::Ulp(2.0, 1.0),
        },
        Case {
            name: "fast_length",
            widths: all,
            two_args: false,
            vector_result: false,
            bound: Bound::Ulp(8192.0, 0.0),
        },
        Case {
            name: "fast_distance",
            widths: all,
            two_args: true,
            vector_result: false,
            bound: Bound::Ulp(8192.0, 0.0),
        },
        Case {
            name: "fast_normalize",
            widths: all,
            two_args: false,
            vector_result: true,
            bound: Bound::Ulp(8192.0, 0.0),
        },
    ]
}

/// The reference result lanes of `name` on lanes `a`, `b`.
fn reference(name: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>();
    let diff: Vec<f64> = a.iter().zip(b).map(|(p, q)| p - q).collect();
    match name.trim_start_matches("fast_") {
        "dot" => vec![dot(a, b)],
        "cross" => {
            let mut c = vec![
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            if a.len() == 4 {
                c.push(0.0);
            }
            c
        }
        "length" => vec![dot(a, a).sqrt()],
        "distance" => vec![dot(&diff, &diff).sqrt()],
        _ => {
            let l = dot(a, a).sqrt();
            a.iter().map(|x| x / l).collect()
        }
    }
}

fn check(ty: &str) {
    let fx = Fixture::new();
    let double = ty == "double";
    let eps = if double {
        f64::EPSILON
    } else {
        f64::from(f32::EPSILON)
    };
    let round = |v: f64| if double { v } else { f64::from(v as f32) };
    let mut rng = Rng(if double { 11 } else { 10 });
    let items = 64usize;
    for case in cases() {
        if double && case.name.starts_with("fast_") {
            continue; // the fast_ forms are float only
        }
        for &n in case.widths {
            let load = |p: &str| {
                if n == 1 {
                    format!("{p}[i]")
                } else {
                    format!("vload{n}(i, {p})")
                }
            };
            let call = if case.two_args {
                format!("{}({}, {})", case.name, load("a"), load("b"))
            } else {
                format!("{}({})", case.name, load("a"))
            };
            let store = if case.vector_result && n > 1 {
                format!("vstore{n}({call}, i, o);")
            } else {
                format!("o[i] = {call};")
            };
            let source = format!(
                "#pragma OPENCL EXTENSION cl_khr_fp64 : enable
                kernel void k(global const {ty} *a, global const {ty} *b, global {ty} *o) {{
                    size_t i = get_global_id(0);
                    {store}
                }}"
            );
            let k = fx.kernel(&source, &CString::new("k").unwrap(), c"");
            let lanes_out = if case.vector_result { n } else { 1 };
            let scale =
                |rng: &mut Rng| f64::from(rng.float(-1.0, 1.0)) * 10f64.powi(rng.int(-3, 3));
            let a: Vec<f64> = (0..items * n).map(|_| round(scale(&mut rng))).collect();
            let b: Vec<f64> = (0..items * n).map(|_| round(scale(&mut rng))).collect();
            let upload = |v: &[f64]| {
                if double {
                    fx.buffer(&v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>())
                } else {
                    fx.buffer(
                        &v.iter()
                            .map(|x| (*x as f32).to_bits())
                            .collect::<Vec<u32>>(),
                    )
                }
            };
            let (ab, bb) = (upload(&a), upload(&b));
            let out = fx.filled(0u64, items * lanes_out);
            k.mem(0, &ab).mem(1, &bb).mem(2, &out);
            fx.run(&k, None, &[items], None);
            let got: Vec<f64> = if double {
                fx.read::<u64>(&out, items * lanes_out)
                    .into_iter()
                    .map(f64::from_bits)
                    .collect()
            } else {
                fx.read::<u32>(&out, items * lanes_out)
                    .into_iter()
                    .map(|w| f64::from(f32::from_bits(w)))
                    .collect()
            };
            for i in 0..items {
                let (x, y) = (&a[i * n..(i + 1) * n], &b[i * n..(i + 1) * n]);
                let want = reference(case.name, x, y);
                let max = x.iter().chain(y).fold(0f64, |m, v| m.max(v.abs()));
                for (l, w) in want.iter().enumerate() {
                    let g = got[i * lanes_out + l];
                    let tolerance = match case.bound {
                        Bound::Products(k) => {
                            let k = if case.name == "dot" {
                                (2 * n - 1) as f64
                            } else {
                                k
                            };
                            max * max * k * eps
                        }
                        Bound::Ulp(base, per_lane) => {
                            (base + per_lane * n as f64) * eps * w.abs().max(f64::MIN_POSITIVE)
                        }
                    };
                    assert!(
                        (g - w).abs() <= tolerance,
                        "{ty}{n} {} of {x:?}, {y:?}: lane {l} got {g}, want {w}",
                        case.name
                    );
                }
            }
        }
    }
}

#[test]
fn geometric_functions_of_float() {
    check("float");
}

#[test]
fn geometric_functions_of_double() {
    check("double");
}
