//! Vectors of `char`/`short` through the loader, vectorized across work-items
//! (compiler/src/codegen/simd/narrow_vec.rs) and with `CLIFT_VECTORIZE=0`: each kernel's
//! outputs are checked against the values computed here in both runs, and the two runs'
//! bytes must be the same. The inputs hold every byte value in every component (0, 0x7f,
//! 0x80, 0xff, negative chars) and the saturation edges of the conversions.

use clift_conformance::kernel_fixture::*;

const SOURCE: &str = r#"
kernel void gray_threshold(global const uchar4 *in, global uchar *gray, global uchar4 *thr,
                           uchar t) {
    size_t i = get_global_id(0);
    uchar4 p = in[i];
    float y = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    uchar g = convert_uchar_sat(y + 0.5f);
    gray[i] = g;
    thr[i] = g >= t ? (uchar4)(g, g, g, p.w) : (uchar4)(0, 0, 0, (uchar)255 - p.w);
}

kernel void contrast(global const uchar4 *in, global uchar4 *u, global char4 *s,
                     float gain, float bias) {
    int i = get_global_id(0);
    float4 f = convert_float4(in[i]) * gain + bias;
    u[i] = convert_uchar4_sat(f);
    s[i] = convert_char4_sat_rte(f - 128.0f);
}

kernel void dots(global const char4 *a, global const char4 *b, global const short8 *c,
                global int *out) {
    int i = get_global_id(0);
    int4 p = convert_int4(a[i]) * convert_int4(b[i]);
    short8 x = c[i];
    int8 q = convert_int8(x) * convert_int8(x.s76543210);
    int4 r = q.lo + q.hi;
    out[i] = p.x + p.y + p.z + p.w + r.x + r.y + r.z + r.w;
}

kernel void elementwise(global const char4 *a, global const char4 *b, global char4 *out,
                        global ushort8 *wide) {
    int i = get_global_id(0);
    char4 x = a[i], y = b[i];
    char4 r = (x + y) * (char4)3 - (x >> 2);
    if (i % 3 == 0) r = r ^ y; else r = as_char4(x < y);
    out[i] = r;
    ushort8 w = convert_ushort8(vload8(i, (global const uchar *)a)) << 7;
    wide[i] = w + (ushort8)(x.x, y.y, 0x8000, 0xffff, 1, 2, 3, 4);
}
"#;

/// Work-items: 256 pixels, so that each component takes every byte value.
const N: usize = 256;

/// Pixel i: (i, 255 - i, i ^ 0x80, i * 7) — every byte in every component.
fn pixels() -> Vec<[u8; 4]> {
    (0..N)
        .map(|i| {
            let b = i as u8;
            [b, 255 - b, b ^ 0x80, b.wrapping_mul(7)]
        })
        .collect()
}

fn words(p: &[[u8; 4]]) -> Vec<u32> {
    p.iter().map(|b| u32::from_le_bytes(*b)).collect()
}

fn bytes_of(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `convert_uchar_sat` / `convert_char_sat_rte` of a float.
fn sat_u8(x: f32) -> u8 {
    if x.is_nan() {
        0
    } else {
        x.trunc().clamp(0.0, 255.0) as u8
    }
}

fn sat_i8_rte(x: f32) -> i8 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(-128.0, 127.0) as i8
    }
}

/// A short digest of bytes (FNV-1a), to compare the two runs' outputs in the log.
fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// Runs every kernel, checks the values, and prints `outputs NAME DIGEST` for each output.
#[test]
#[ignore = "run by both_ways_give_the_same_bytes in a child process"]
fn narrow_vectors_child() {
    let fx = Fixture::new();
    let px = pixels();
    let input = fx.buffer(&words(&px));
    let mut out = Vec::new();

    let k = fx.kernel(SOURCE, c"gray_threshold", c"");
    for t in [0x7fu8, 0x80] {
        let (gray, thr) = (fx.filled(0u32, N / 4), fx.filled(0u32, N));
        k.mem(0, &input)
            .mem(1, &gray)
            .mem(2, &thr)
            .arg_bytes(3, &[t]);
        fx.run(&k, None, &[N], Some(&[64]));
        let (g, th) = (bytes_of(&fx.read(&gray, N / 4)), fx.read::<u32>(&thr, N));
        for (i, p) in px.iter().enumerate() {
            let y = 0.299f32 * p[0] as f32 + 0.587f32 * p[1] as f32 + 0.114f32 * p[2] as f32;
            let want = sat_u8(y + 0.5);
            assert_eq!(g[i], want, "gray of {p:?}");
            let thr = if want >= t {
                [want, want, want, p[3]]
            } else {
                [0, 0, 0, 255 - p[3]]
            };
            assert_eq!(th[i].to_le_bytes(), thr, "threshold {t} of {p:?}");
        }
        out.push((format!("gray{t}"), g));
        out.push((format!("threshold{t}"), bytes_of(&th)));
    }

    let k = fx.kernel(SOURCE, c"contrast", c"");
    for (gain, bias) in [(1.7f32, -30.0f32), (-1.0, 255.5), (0.5, 64.49)] {
        let (u, s) = (fx.filled(0u32, N), fx.filled(0u32, N));
        k.mem(0, &input)
            .mem(1, &u)
            .mem(2, &s)
            .arg(3, gain.to_bits())
            .arg(4, bias.to_bits());
        fx.run(&k, None, &[N], Some(&[32]));
        let (ub, sb) = (bytes_of(&fx.read(&u, N)), bytes_of(&fx.read(&s, N)));
        for (j, &x) in px.iter().flatten().enumerate() {
            let f = x as f32 * gain + bias;
            assert_eq!(ub[j], sat_u8(f), "uchar of {x} * {gain} + {bias}");
            assert_eq!(
                sb[j] as i8,
                sat_i8_rte(f - 128.0),
                "char of {x} * {gain} + {bias}"
            );
        }
        out.push((format!("contrast{gain}"), [ub, sb].concat()));
    }

    let k = fx.kernel(SOURCE, c"dots", c"");
    let other: Vec<[u8; 4]> = px.iter().map(|p| [p[3], p[2], p[1], p[0]]).collect();
    let shorts: Vec<u16> = (0..8 * N)
        .map(|j| match j % 5 {
            0 => 0x8000,
            1 => 0x7fff,
            2 => 0xffff,
            _ => (j as u16).wrapping_mul(40503),
        })
        .collect();
    let short_words: Vec<u32> = shorts
        .chunks(2)
        .map(|c| u32::from(c[0]) | u32::from(c[1]) << 16)
        .collect();
    let (b, c, o) = (
        fx.buffer(&words(&other)),
        fx.buffer(&short_words),
        fx.filled(0i32, N),
    );
    k.mem(0, &input).mem(1, &b).mem(2, &c).mem(3, &o);
    fx.run(&k, None, &[N - 3], Some(&[N - 3]));
    let got = fx.read::<i32>(&o, N);
    for i in 0..N - 3 {
        let p: i32 = (0..4)
            .map(|c| i32::from(px[i][c] as i8) * i32::from(other[i][c] as i8))
            .sum();
        let x = &shorts[8 * i..8 * i + 8];
        let q = (0..8).fold(0i32, |acc, c| {
            acc.wrapping_add(i32::from(x[c] as i16) * i32::from(x[7 - c] as i16))
        });
        assert_eq!(got[i], p.wrapping_add(q), "dot of item {i}");
    }
    out.push((
        "dot".into(),
        bytes_of(&got.iter().map(|&x| x as u32).collect::<Vec<_>>()),
    ));

    let k = fx.kernel(SOURCE, c"elementwise", c"");
    let (r, w) = (fx.filled(0u32, N), fx.filled(0u32, 4 * N));
    k.mem(0, &input).mem(1, &b).mem(2, &r).mem(3, &w);
    fx.run(&k, None, &[N / 2], None);
    let (rb, wb) = (bytes_of(&fx.read(&r, N)), bytes_of(&fx.read(&w, 4 * N)));
    let flat: Vec<u8> = px.iter().flatten().copied().collect();
    for i in 0..N / 2 {
        for c in 0..4 {
            let (x, y) = (px[i][c] as i8, other[i][c] as i8);
            let sum = x.wrapping_add(y).wrapping_mul(3).wrapping_sub(x >> 2);
            let want = if i % 3 == 0 {
                sum ^ y
            } else {
                -i8::from(x < y)
            };
            assert_eq!(rb[4 * i + c] as i8, want, "item {i} component {c}: {x} {y}");
        }
        let extra = [
            px[i][0] as i8 as u16,
            other[i][1] as i8 as u16,
            0x8000,
            0xffff,
            1,
            2,
            3,
            4,
        ];
        for (c, e) in extra.iter().enumerate() {
            let v = u16::from(flat[8 * i + c]) << 7;
            let got = u16::from_le_bytes([wb[16 * i + 2 * c], wb[16 * i + 2 * c + 1]]);
            assert_eq!(got, v.wrapping_add(*e), "wide item {i} component {c}");
        }
    }
    out.push(("elementwise".into(), [rb, wb].concat()));

    for (name, bytes) in out {
        println!("outputs {name} {:016x}", digest(&bytes));
    }
}

/// The `outputs` lines of a child's text, and whether each kernel of it was vectorized.
fn outputs(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("outputs ")).collect()
}

#[test]
fn both_ways_give_the_same_bytes() {
    let vectorized = child("narrow_vectors_child", &[("CLIFT_LOG", "build")]);
    let scalar = child(
        "narrow_vectors_child",
        &[("CLIFT_LOG", "build"), ("CLIFT_VECTORIZE", "0")],
    );
    for kernel in ["gray_threshold", "contrast", "dots", "elementwise"] {
        let line = |text: &str| {
            text.lines()
                .find(|l| l.contains(&format!("kernel {kernel} runs as")))
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            line(&vectorized).ends_with("4 work-items per step (vectorized)"),
            "{kernel}: {}",
            line(&vectorized)
        );
        assert!(
            line(&scalar).ends_with("not vectorized: turned off (CLIFT_VECTORIZE=0)"),
            "{kernel}: {}",
            line(&scalar)
        );
    }
    let (v, s) = (outputs(&vectorized), outputs(&scalar));
    assert_eq!(v.len(), 8, "{vectorized}");
    assert_eq!(v, s);
}
