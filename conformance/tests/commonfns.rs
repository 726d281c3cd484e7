//! The `commonfns` suite (6.12.4): `clamp`, `degrees`, `max`, `min`, `mix`, `radians`,
//! `step`, `smoothstep` and `sign` for float and double, at every width and with the scalar
//! forms (`clamp(floatn, float, float)`, `mix(floatn, floatn, float)`, ...), against a
//! double-precision host reference within the bounds of table 7.1/7.2 (0 ulp where the
//! function is exact, 2 ulp for `degrees`/`radians`; `mix` and `smoothstep`, whose error
//! is implementation-defined, within a few ulp of the inputs' magnitude).

use std::ffi::CString;

use clift_conformance::kernel_fixture::*;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// One function form: its call (a, b, c are vectors; `sa`, `sb` scalars), its reference
/// and its tolerance in ulp of the result (`None`: exact), or an absolute tolerance scaled
/// by the inputs.
struct Case {
    call: &'static str,
    reference: fn(f64, f64, f64) -> f64,
    ulp: Option<f64>,
    /// Arguments drawn so that the call is defined: `lo <= hi`, `edge0 < edge1`, `0 <= t <= 1`.
    inputs: Inputs,
}

#[derive(Clone, Copy)]
enum Inputs {
    Any,
    /// b <= c (clamp bounds).
    Ordered,
    /// c in [0, 1] (mix weight).
    Weight,
    /// a < b (smoothstep edges), c anywhere.
    Edges,
}

fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn sign(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            call: "clamp(a, b, c)",
            reference: |a, b, c| a.max(b).min(c),
            ulp: None,
            inputs: Inputs::Ordered,
        },
        Case {
            call: "clamp(a, sb, sc)",
            reference: |a, b, c| a.max(b).min(c),
            ulp: None,
            inputs: Inputs::Ordered,
        },
        Case {
            call: "degrees(a)",
            reference: |a, _, _| a.to_degrees(),
            ulp: Some(2.0),
            inputs: Inputs::Any,
        },
        Case {
            call: "radians(a)",
            reference: |a, _, _| a.to_radians(),
            ulp: Some(2.0),
            inputs: Inputs::Any,
        },
        Case {
            call: "max(a, b)",
            reference: |a, b, _| if a < b { b } else { a },
            ulp: None,
            inputs: Inputs::Any,
        },
        Case {
            call: "max(a, sb)",
            reference: |a, b, _| if a < b { b } else { a },
            ulp: None,
            inputs: Inputs::Any,
        },
        Case {
            call: "min(a, b)",
            reference: |a, b, _| if b < a { b } else { a },
            ulp: None,
            inputs: Inputs::Any,
        },
        Case {
            call: "min(a, sb)",
            reference: |a, b, _| if b < a { b } else { a },
            ulp: None,
            inputs: Inputs::Any,
        },
        Case {
            call: "mix(a, b, c)",
            reference: |a, b, c| a + (b - a) * c,
            ulp: Some(4.0),
            inputs: Inputs::Weight,
        },
        Case {
            call: "mix(a, b, sc)",
            reference: |a, b, c| a + (b - a) * c,
            ulp: Some(4.0),
            inputs: Inputs::Weight,
        },
        Case {
            call: "step(a, b)",
            reference: |a, b, _| if b < a { 0.0 } else { 1.0 },
            ulp: None,
            inputs: Inputs::Any,
        },
        Case {
            call: "step(sa, b)",
            reference: |a, b, _| if b < a { 0.0 } else { 1.0 },
            ulp: None,
            inputs: Inputs::Any,
        },
        Case {
            call: "smoothstep(a, b, c)",
            reference: smoothstep,
            ulp: Some(4.0),
            inputs: Inputs::Edges,
        },
        Case {
            call: "smoothstep(sa, sb, c)",
            reference: smoothstep,
            ulp: Some(4.0),
            inputs: Inputs::Edges,
        },
        Case {
            call: "sign(a)",
            reference: |a, _, _| sign(a),
            ulp: None,
            inputs: Inputs::Any,
        },
    ]
}

/// Random inputs for lane `l` of item `i` (scalar arguments use lane 0 of each item).
fn draw(inputs: Inputs, rng: &mut Rng) -> [f64; 3] {
    let mut v = [0.0; 3].map(|_: f64| f64::from(rng.float(-200.0, 200.0)));
    // Some exact values that matter for step/sign/clamp.
    if rng.next_u64().is_multiple_of(8) {
        v[0] = [0.0, -0.0, 1.0, -1.0][(rng.next_u64() % 4) as usize];
    }
    match inputs {
        Inputs::Any => {}
        Inputs::Ordered => {
            if v[1] > v[2] {
                v.swap(1, 2);
            }
        }
        Inputs::Weight => v[2] = f64::from(rng.float(0.0, 1.0)),
        Inputs::Edges => {
            if v[0] > v[1] {
                v.swap(0, 1);
            }
            if v[0] == v[1] {
                v[1] += 1.0;
            }
        }
    }
    v
}

/// Runs every case at every width for `ty` ("float" or "double").
fn check(ty: &str) {
    let fx = Fixture::new();
    let double = ty == "double";
    let mut rng = Rng(if double { 2 } else { 1 });
    let items = 33usize;
    for case in cases() {
        let mut source = String::from("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        for n in WIDTHS {
            let vt = if n == 1 {
                ty.to_string()
            } else {
                format!("{ty}{n}")
            };
            let load = |p: &str| {
                if n == 1 {
                    format!("{p}[i]")
                } else {
                    format!("VLOAD(i, {p})")
                }
            };
            let store = if n == 1 {
                "o[i] = r;".to_string()
            } else {
                format!("vstore{n}(r, i, o);")
            };
            source += &format!(
                "#define VLOAD vload{n}
                kernel void k{n}(global const {ty} *pa, global const {ty} *pb,
                                 global const {ty} *pc, global {ty} *o) {{
                    size_t i = get_global_id(0);
                    {vt} a = {}, b = {}, c = {};
                    {ty} sa = pa[i * {n}], sb = pb[i * {n}], sc = pc[i * {n}];
                    {vt} r = {};
                    {store}
                }}
                #undef VLOAD\n",
                load("pa"),
                load("pb"),
                load("pc"),
                case.call,
            );
        }
        for n in WIDTHS {
            let name = CString::new(format!("k{n}")).unwrap();
            let k = fx.kernel(&source, &name, c"");
            let count = items * n;
            let mut args = [vec![0f64; count], vec![0f64; count], vec![0f64; count]];
            for j in 0..count {
                let v = draw(case.inputs, &mut rng);
                for (slot, value) in args.iter_mut().zip(v) {
                    slot[j] = value;
                }
            }
            // Scalar arguments come from lane 0 of each item: keep the constraints there
            // valid for every lane of the item.
            for i in 0..items {
                for j in i * n..(i + 1) * n {
                    match case.inputs {
                        Inputs::Ordered if case.call.contains("sb") => {
                            let (lo, hi) = (args[1][i * n], args[2][i * n]);
                            args[1][j] = lo;
                            args[2][j] = hi;
                        }
                        Inputs::Edges if case.call.contains("sa") => {
                            let (e0, e1) = (args[0][i * n], args[1][i * n]);
                            args[0][j] = e0;
                            args[1][j] = e1;
                        }
                        _ => {}
                    }
                }
            }
            let round = |v: f64| if double { v } else { f64::from(v as f32) };
            let args = args.map(|a| a.into_iter().map(round).collect::<Vec<f64>>());
            let buffers: Vec<Mem> = args
                .iter()
                .map(|a| {
                    if double {
                        fx.buffer(&a.iter().map(|v| v.to_bits()).collect::<Vec<u64>>())
                    } else {
                        fx.buffer(
                            &a.iter()
                                .map(|v| (*v as f32).to_bits())
                                .collect::<Vec<u32>>(),
                        )
                    }
                })
                .collect();
            let out = fx.filled(0u64, count);
            k.mem(0, &buffers[0])
                .mem(1, &buffers[1])
                .mem(2, &buffers[2])
                .mem(3, &out);
            fx.run(&k, None, &[items], None);
            let got: Vec<f64> = if double {
                fx.read::<u64>(&out, count)
                    .into_iter()
                    .map(f64::from_bits)
                    .collect()
            } else {
                fx.read::<u32>(&out, count)
                    .into_iter()
                    .map(|w| f64::from(f32::from_bits(w)))
                    .collect()
            };
            let eps = if double {
                f64::EPSILON
            } else {
                f64::from(f32::EPSILON)
            };
            for j in 0..count {
                let i = j / n;
                let scalar = |k: usize| args[k][i * n];
                let (a, b, c) = (args[0][j], args[1][j], args[2][j]);
                let (a, b, c) = match case.call {
                    "clamp(a, sb, sc)" => (a, scalar(1), scalar(2)),
                    "max(a, sb)" | "min(a, sb)" => (a, scalar(1), c),
                    "mix(a, b, sc)" => (a, b, scalar(2)),
                    "step(sa, b)" => (scalar(0), b, c),
                    "smoothstep(sa, sb, c)" => (scalar(0), scalar(1), c),
                    _ => (a, b, c),
                };
                let want = round((case.reference)(a, b, c));
                let ok = match case.ulp {
                    None => got[j].to_bits() == want.to_bits() || (got[j] == want),
                    Some(u) => {
                        let scale = want.abs().max(a.abs()).max(b.abs()).max(f64::MIN_POSITIVE);
                        let scale = if case.call.starts_with("smoothstep") {
                            1.0
                        } else {
                            scale
                        };
                        (got[j] - want).abs() <= u * eps * scale
                    }
                };
                assert!(
                    ok,
                    "{ty} {} width {n} at ({a}, {b}, {c}): got {}, want {want}",
                    case.call, got[j]
                );
            }
        }
    }
}

#[test]
fn common_functions_of_float() {
    check("float");
}

#[test]
fn common_functions_of_double() {
    check("double");
}
