//! Garbage in, diagnostics out, never a panic: pseudo-random bytes and random soups of
//! directive fragments through `tokenize` and `preprocess`. Plus the throughput
//! measurement (ignored: run it in release with `--ignored --nocapture`).

use clift_compiler::frontend::diag::Diagnostics;
use clift_compiler::frontend::preprocess::PreprocessOptions;

use super::run_with;

/// xorshift64*: reproducible randomness without a crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// How many cases each fuzz test runs: 2,000, or `CLIFT_FUZZ_CASES` for a longer hunt.
fn cases() -> usize {
    std::env::var("CLIFT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// Headers the soups may include, cycles included.
fn options() -> PreprocessOptions {
    PreprocessOptions {
        headers: vec![
            (
                "h.h".into(),
                "#define H 1\nh_body\n#include \"h.h\"\n".into(),
            ),
            ("g.h".into(), "#if G\n#else\n#include <h.h>\n".into()),
            ("e.h".into(), "".into()),
        ],
        extensions: vec!["cl_khr_fp64".into()],
        fp64: true,
        ..PreprocessOptions::default()
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let options = options();
    // Bytes biased towards the ones the preprocessor cares about.
    let alphabet = b"#####\n\n\n\\\"'()<>,.;:?!~^&|*/%+-=__aAfgx019 \t\r\x0b\x0cdefineincludeifelse\xc3\xa9\xff";
    for case in 0..cases() {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        let mut strict = Diagnostics::new();
        strict.warnings_are_errors = case % 2 == 0;
        let r = run_with(&text, &options, strict);
        let _ = r.log(); // Rendering must not panic either.
    }
}

#[test]
fn random_directive_soups_never_panic() {
    const FRAGMENTS: &[&str] = &[
        "\n#define ",
        "\n#define f(",
        "\n#define g(x, ...) ",
        "\n#undef ",
        "\n#if ",
        "\n#ifdef ",
        "\n#ifndef ",
        "\n#elif ",
        "\n#else",
        "\n#endif",
        "\n#include ",
        "\n#line ",
        "\n#pragma ",
        "\n#error ",
        "\n#warning ",
        "\n#",
        "\n",
        " ",
        "(",
        ")",
        ",",
        "#",
        "##",
        "...",
        "__VA_ARGS__",
        "f",
        "g",
        "x",
        "y",
        "H",
        "defined",
        "1",
        "0",
        "0x",
        "'c'",
        "'",
        "\"",
        "\"h.h\"",
        "<h.h>",
        "<g.h>",
        "\"e.h\"",
        "_Pragma",
        "\"str\"",
        "/",
        "%",
        "-",
        "+",
        "?",
        ":",
        "<<",
        "__LINE__",
        "__FILE__",
        "\\\n",
        "/*",
        "*/",
        "//",
        "f(f(",
        "g(",
        "1/0",
        "~",
    ];
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let options = options();
    let start = std::time::Instant::now();
    for _ in 0..cases() {
        let n = rng.below(60);
        let text: String = (0..n)
            .map(|_| FRAGMENTS[rng.below(FRAGMENTS.len())])
            .collect();
        let r = run_with(&text, &options, Diagnostics::new());
        let _ = r.log();
    }
    assert!(
        start.elapsed().as_secs() < 120,
        "the soups took {:?}",
        start.elapsed()
    );
}

/// 5,000 lines of macro-heavy code: prints how long preprocessing takes. Run with
/// `cargo test --release -p clift-compiler --test preprocess -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn throughput_of_macro_heavy_code() {
    let mut text = String::from(
        "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n\
         #define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
         #define CLAMP(x, lo, hi) MIN(MAX(x, lo), hi)\n\
         #define SQ(x) ((x) * (x))\n\
         #define MAD(a, b, c) ((a) * (b) + (c))\n\
         #define CAT(a, b) a ## b\n\
         #define XCAT(a, b) CAT(a, b)\n\
         #define STR(x) #x\n\
         #define IDX(x, y, w) ((y) * (w) + (x))\n\
         #define LOAD(p, x, y) (p)[IDX(x, y, WIDTH)]\n\
         #define WIDTH 1024\n\
         #define DBG(fmt, ...) printf(fmt, ## __VA_ARGS__)\n",
    );
    let lines = 5000;
    for i in 0..lines {
        match i % 5 {
            0 => {
                text += &format!(
                    "float XCAT(v, {i}) = CLAMP(SQ(a{i} + b), MIN(c, d), MAX(e, M_PI_F));\n"
                )
            }
            1 => {
                text += &format!(
                    "acc = MAD(LOAD(src, x + {i}, y), SQ(w), acc) + CLAMP(LOAD(src, x, y + 1), 0.0f, 1.0f);\n"
                )
            }
            2 => {
                text += &format!(
                    "#if defined(cl_khr_fp64) && WIDTH * {i} > 100\nDBG(\"%d\", {i}); DBG(STR(line {i}));\n#endif\n"
                )
            }
            3 => {
                text += &format!(
                    "int XCAT(idx, {i}) = IDX(MIN(x, {i}), MAX(y, INT_MAX / 2), WIDTH) + __LINE__;\n"
                )
            }
            _ => {
                text += "out[get_global_id(0)] = MAX(MIN(MAX(a, b), MIN(c, d)), CLAMP(e, f, g));\n"
            }
        }
    }
    let options = PreprocessOptions {
        extensions: vec!["cl_khr_fp64".into()],
        ..PreprocessOptions::default()
    };
    // Warm up once, then time the best of a few runs.
    let mut best = std::time::Duration::MAX;
    let mut tokens = 0;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        let r = run_with(&text, &options, Diagnostics::new());
        best = best.min(start.elapsed());
        assert_eq!(r.log(), "");
        tokens = r.tokens.len();
    }
    println!(
        "preprocessed {lines} lines ({} bytes) into {tokens} tokens in {:.2} ms (best of 5)",
        text.len(),
        best.as_secs_f64() * 1e3
    );
}
