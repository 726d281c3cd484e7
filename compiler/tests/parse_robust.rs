//! The parser on hostile input: random token soups, mutated programs and deep nesting
//! must give diagnostics, never a panic or a stack overflow. Also the throughput
//! measurement (ignored by default; run it in release mode):
//! `cargo test --release -p clift-compiler --test parse_robust -- --ignored --nocapture`.

use std::fs;
use std::time::Instant;

use clift_compiler::frontend::ast::{ExternalDecl, StmtKind, TranslationUnit};
use clift_compiler::frontend::diag::Diagnostics;
use clift_compiler::frontend::parse;
use clift_compiler::frontend::source::SourceMap;
use clift_compiler::frontend::token::Token;

mod common;
#[path = "parse/support.rs"]
mod support;

/// xorshift64*: a small deterministic generator (no crates).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Parses `text` (pragma lines folded) and exercises everything downstream of the parse:
/// the dump and the rendered diagnostics.
fn parse_text(name: &str, text: &str) -> (TranslationUnit, Diagnostics, String) {
    let mut sources = SourceMap::new();
    let file = sources.add(name, text);
    let mut diags = Diagnostics::new();
    let tokens = support::tokens(file, text, &mut diags);
    let unit = parse::parse(&tokens, &mut diags);
    let _ = parse::dump(&unit);
    let rendered = diags.render(&sources);
    (unit, diags, rendered)
}

const VOCABULARY: &[&str] = &[
    "int",
    "float",
    "float4",
    "uint",
    "size_t",
    "image2d_t",
    "void",
    "char",
    "long",
    "unsigned",
    "half",
    "double",
    "bool",
    "struct",
    "union",
    "enum",
    "typedef",
    "static",
    "extern",
    "const",
    "volatile",
    "restrict",
    "__global",
    "local",
    "__constant",
    "private",
    "__read_only",
    "write_only",
    "kernel",
    "__kernel",
    "inline",
    "auto",
    "register",
    "if",
    "else",
    "while",
    "do",
    "for",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "return",
    "goto",
    "sizeof",
    "vec_step",
    "__attribute__",
    "T",
    "a",
    "b",
    "x",
    "foo",
    "main",
    "0",
    "1",
    "42u",
    "0x1p-3f",
    "1.5e3",
    ".5f",
    "1..2",
    "'c'",
    "\"s\"",
    "\"t\"",
    "(",
    ")",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "{",
    "}",
    ";",
    ";",
    ";",
    ",",
    ",",
    ".",
    "->",
    "++",
    "--",
    "&",
    "*",
    "*",
    "+",
    "-",
    "~",
    "!",
    "/",
    "%",
    "<<",
    ">>",
    "<",
    ">",
    "<=",
    ">=",
    "==",
    "!=",
    "^",
    "|",
    "&&",
    "||",
    "?",
    ":",
    "=",
    "*=",
    "/=",
    "%=",
    "+=",
    "-=",
    "<<=",
    ">>=",
    "&=",
    "^=",
    "|=",
    "...",
    "@",
    "$",
    "`",
    "\n#pragma unroll\n",
    "\n#pragma OPENCL EXTENSION all : enable\n",
    "typedef int T;",
    "(float4)(",
    "((",
    "))",
    "{{",
    "}}",
    "__attribute__((",
    "x.y",
    "s->t",
];

#[test]
fn random_token_soups_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..3000 {
        let len = 1 + rng.below(300);
        let mut text = String::new();
        for _ in 0..len {
            text.push_str(VOCABULARY[rng.below(VOCABULARY.len())]);
            text.push(if rng.below(8) == 0 { '\n' } else { ' ' });
        }
        let (_, diags, rendered) = parse_text("soup.cl", &text);
        // Only errors; and each one is rendered with its location.
        assert_eq!(
            rendered.matches(": error: ").count(),
            diags.error_count(),
            "case {case}: {text}"
        );
    }
}

/// The golden inputs, as token lists.
fn corpus() -> Vec<(String, Vec<Token>)> {
    common::cl_files("parse")
        .iter()
        .map(|p| {
            let text = fs::read_to_string(p).unwrap();
            let mut sources = SourceMap::new();
            let file = sources.add("m.cl", &text);
            let tokens = support::tokens(file, &text, &mut Diagnostics::new());
            (text, tokens)
        })
        .collect()
}

#[test]
fn mutated_programs_never_panic() {
    let corpus = corpus();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for case in 0..3000 {
        let (text, original) = &corpus[rng.below(corpus.len())];
        let mut tokens = original.clone();
        for _ in 0..1 + rng.below(6) {
            if tokens.len() < 3 {
                break;
            }
            // Positions before the final Eof, which stays where it is.
            let i = rng.below(tokens.len() - 1);
            let j = rng.below(tokens.len() - 1);
            match rng.below(4) {
                0 => {
                    tokens.remove(i);
                }
                1 => {
                    let t = tokens[j].clone();
                    tokens.insert(i, t);
                }
                2 => tokens.swap(i, j),
                _ => {
                    let (lo, hi) = (i.min(j), i.max(j).min(i.min(j) + 20));
                    let slice: Vec<Token> = tokens[lo..hi].to_vec();
                    tokens.splice(i..i, slice);
                }
            }
        }
        let mut sources = SourceMap::new();
        sources.add("m.cl", text);
        let mut diags = Diagnostics::new();
        let unit = parse::parse(&tokens, &mut diags);
        let _ = parse::dump(&unit);
        let _ = diags.render(&sources);
        // Without its Eof, or truncated anywhere, the input still ends cleanly.
        let cut = rng.below(tokens.len() + 1);
        let unit = parse::parse(&tokens[..cut], &mut Diagnostics::new());
        let _ = (case, parse::dump(&unit));
    }
}

#[test]
fn empty_input() {
    let unit = parse::parse(&[], &mut Diagnostics::new());
    assert!(unit.items.is_empty());
    let (unit, diags, _) = parse_text("e.cl", "");
    assert!(unit.items.is_empty() && !diags.has_errors());
}

/// Parses a one-function program around `body` and returns its error messages.
fn errors_in(body: &str) -> Vec<String> {
    let text = format!("void f(int x, int *p)\n{{\n{body}\n}}\nint after;\n");
    let (unit, diags, _) = parse_text("deep.cl", &text);
    // Whatever failed, the declaration after the function is there.
    assert!(
        matches!(unit.items.last(), Some(ExternalDecl::Declaration(_))),
        "the parser lost its way after: {}",
        &body[..body.len().min(200)]
    );
    diags.iter().map(|d| d.message.clone()).collect()
}

fn assert_nesting_error(body: &str) {
    let errors = errors_in(body);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("too deep") || errors[0].contains("too complex"),
        "{errors:?}"
    );
}

#[test]
fn deep_nesting_is_a_clean_error() {
    let n = 300;
    assert_nesting_error(&format!("x = {}x{};", "(".repeat(n), ")".repeat(n)));
    assert_nesting_error(&format!("{}x = 1;{}", "{".repeat(n), "}".repeat(n)));
    assert_nesting_error(&format!("x = {}x;", "- ".repeat(n)));
    assert_nesting_error(&format!("x = {}x;", "!".repeat(n)));
    assert_nesting_error(&format!("x = {}x;", "++".repeat(n)));
    assert_nesting_error(&format!("x = {}x;", "sizeof ".repeat(n)));
    assert_nesting_error(&format!("x = {}x;", "(int)".repeat(n)));
    assert_nesting_error(&format!("x = {}1;", "x ? 1 : ".repeat(n)));
    assert_nesting_error(&format!("x = {}1;", "x = ".repeat(n)));
    assert_nesting_error(&format!("{}x = 1;", "if (x) ".repeat(n)));
    assert_nesting_error(&format!("{}x = 1;", "while (x) ".repeat(n)));
    assert_nesting_error(&format!(
        "x = 0;{}",
        " else if (x) x = 1;"
            .repeat(n)
            .replacen(" else", "if (x) x = 0; else", 1)
    ));
    assert_nesting_error(&format!("int a = {}1{};", "{".repeat(n), "}".repeat(n)));
    assert_nesting_error(&format!("int {}y{};", "(".repeat(n), ")".repeat(n)));
    assert_nesting_error(&format!("int {}y;", "*".repeat(n)));
    assert_nesting_error(&format!("int y[1]{};", "[1]".repeat(n)));
    assert_nesting_error(&format!(
        "{}int z;{} }} s;",
        "struct { ".repeat(n),
        " };".repeat(n - 1)
    ));
    assert_nesting_error(&format!("x = sizeof(int{});", "*".repeat(n)));
    assert_nesting_error(&format!("x = f({}x{});", "f(".repeat(n), ")".repeat(n)));
    assert_nesting_error(&format!("x = p{};", "[0]".repeat(2000)));
    assert_nesting_error(&format!("x = x{};", " + x".repeat(2000)));
    assert_nesting_error(&format!("x = (x{});", ", x".repeat(2000)));
}

#[test]
fn deep_but_reasonable_nesting_parses() {
    let n = 200;
    let ok = |body: &str| {
        let errors = errors_in(body);
        assert!(errors.is_empty(), "{errors:?}");
    };
    ok(&format!("x = {}x{};", "(".repeat(n), ")".repeat(n)));
    ok(&format!("{}x = 1;{}", "{".repeat(n), "}".repeat(n)));
    ok(&format!("x = {}x;", "- ".repeat(n)));
    ok(&format!("if (x) x = 0;{}", " else if (x) x = 1;".repeat(n)));
    ok(&format!("x = {}1;", "x ? 1 : ".repeat(n)));
    // Operator chains of hundreds of operators (generated code has them).
    ok(&format!("x = x{};", " + x".repeat(900)));
    ok(&format!("x = p{};", "[0]".repeat(900)));
    // Flat lists have no limit.
    ok(&format!(
        "switch (x) {{ {} x = 1; }}",
        (0..5000).map(|i| format!("case {i}:")).collect::<String>()
    ));
    ok(&format!("int a[] = {{ {} }};", "1, ".repeat(100_000)));
    ok(&format!("x = f({}x);", "x, ".repeat(100_000)));
    ok(&"x = 1;".repeat(100_000));
}

#[test]
fn pragmas_attach_to_the_next_statement() {
    let (unit, diags, _) = parse_text(
        "p.cl",
        "void f(int n)\n{\n#pragma unroll 4\n    for (;;) break;\n#pragma trailing\n}\n",
    );
    assert!(!diags.has_errors());
    let ExternalDecl::Function(f) = &unit.items[0] else {
        panic!("not a function")
    };
    let for_stmt = &f.body.items[0];
    assert!(matches!(for_stmt.kind, StmtKind::For { .. }));
    assert_eq!(&*for_stmt.pragmas[0].text, "unroll 4");
    assert!(matches!(f.body.items[1].kind, StmtKind::Null));
    assert_eq!(&*f.body.items[1].pragmas[0].text, "trailing");
}

/// A kernel file of `lines` lines: many functions of typical OpenCL code.
fn generated_kernel_file(lines: usize) -> String {
    let mut out = String::from(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         typedef struct { float4 pos; float4 vel; int id; } Particle;\n",
    );
    let mut i = 0;
    while out.lines().count() < lines {
        out.push_str(&format!(
            "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n\
             void step_{i}(__global Particle *restrict ps, __local float4 *scratch,\n\
                           const float dt, const uint n, __constant float *coeff)\n\
             {{\n\
             \x20   const size_t gid = get_global_id(0);\n\
             \x20   const size_t lid = get_local_id(0);\n\
             \x20   if (gid >= n) return;\n\
             \x20   Particle p = ps[gid];\n\
             \x20   float4 acc = (float4)(0.0f, -9.81f, 0.0f, 0.0f);\n\
             \x20   scratch[lid] = p.pos;\n\
             \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
             #pragma unroll 4\n\
             \x20   for (int j = 0; j < 64; j++) {{\n\
             \x20       float4 d = scratch[j] - p.pos;\n\
             \x20       float r2 = d.x * d.x + d.y * d.y + d.z * d.z + 1e-3f;\n\
             \x20       acc += d * (coeff[j & 7] / (r2 * sqrt(r2)));\n\
             \x20   }}\n\
             \x20   p.vel.xyz += acc.xyz * dt;\n\
             \x20   p.pos = mad((float4)(dt), p.vel, p.pos);\n\
             \x20   switch (p.id & 3) {{\n\
             \x20   case 0: p.vel *= 0.99f; break;\n\
             \x20   case 1: p.vel.w = (float)p.id; break;\n\
             \x20   default: p.id = p.id > 0 ? p.id - 1 : 0;\n\
             \x20   }}\n\
             \x20   ps[gid] = p;\n\
             }}\n\n"
        ));
        i += 1;
    }
    out
}

#[test]
#[ignore = "a measurement: run in release mode with --ignored --nocapture"]
fn throughput_of_a_5000_line_kernel_file() {
    let text = generated_kernel_file(5000);
    let lines = text.lines().count();
    let mut best = f64::MAX;
    let mut tokens_count = 0;
    for _ in 0..20 {
        let start = Instant::now();
        let mut sources = SourceMap::new();
        let file = sources.add("big.cl", &text);
        let mut diags = Diagnostics::new();
        let tokens = support::tokens(file, &text, &mut diags);
        let unit = parse::parse(&tokens, &mut diags);
        let elapsed = start.elapsed().as_secs_f64();
        assert!(!diags.has_errors(), "{}", diags.render(&sources));
        assert!(unit.items.len() > 100);
        tokens_count = tokens.len();
        best = best.min(elapsed);
    }
    let mut lex_best = f64::MAX;
    for _ in 0..20 {
        let start = Instant::now();
        let mut sources = SourceMap::new();
        let file = sources.add("big.cl", &text);
        let tokens = support::tokens(file, &text, &mut Diagnostics::new());
        lex_best = lex_best.min(start.elapsed().as_secs_f64());
        assert!(tokens.len() == tokens_count);
    }
    println!(
        "{lines} lines, {} bytes, {tokens_count} tokens: lex + parse {:.2} ms (lex {:.2} ms, parse {:.2} ms), {:.0} lines/s",
        text.len(),
        best * 1e3,
        lex_best * 1e3,
        (best - lex_best) * 1e3,
        lines as f64 / best
    );
}
