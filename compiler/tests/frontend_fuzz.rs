//! The whole frontend (preprocess, parse, sema) on random programs, with proptest: programs
//! generated from the shape of OpenCL C (declarations, typed expressions with vectors,
//! swizzles, casts, builtin calls, compound literals, statements, kernels), often well
//! typed and sometimes not, and mutated or truncated copies of the corpus programs. The
//! frontend must never panic, and must answer either with no error or with diagnostics
//! whose every header has the form `file:line:col: error: message`.
//!
//! `tests/parse_robust.rs` covers the parser alone (token soups, token-level mutations,
//! deep nesting); this test is the one that reaches semantic analysis. It runs 1,000 cases
//! per property by default (a few seconds); `CLIFT_FUZZ_CASES=N` runs N (a longer hunt).

mod common;

use std::fs;

use clift_compiler::frontend::{self, preprocess::PreprocessOptions, sema};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Cases per property: 1,000, or `CLIFT_FUZZ_CASES`.
fn config() -> Config {
    let cases = std::env::var("CLIFT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// The options of clift's CPU device (fp64 supported, so its pragma may enable it).
fn options() -> (PreprocessOptions, sema::Options) {
    let pp = PreprocessOptions {
        fp64: true,
        extensions: vec!["cl_khr_fp64".into()],
        ..PreprocessOptions::default()
    };
    let sema = sema::Options {
        fp64_supported: true,
        int64_atomics_supported: true,
        ..sema::Options::default()
    };
    (pp, sema)
}

/// `file:line:col: kind: ` at the start of `line`: the kind, if it is a diagnostic header.
fn header_kind<'a>(line: &'a str, file: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(file)?.strip_prefix(':')?;
    let (row, rest) = rest.split_once(':')?;
    let (col, rest) = rest.split_once(": ")?;
    let numbers = [row, col]
        .iter()
        .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let (kind, _) = rest.split_once(": ")?;
    (numbers && matches!(kind, "error" | "warning" | "note")).then_some(kind)
}

/// Runs the frontend on `text`; fails (with the log) unless its errors are all rendered
/// with a location. A panic inside fails the property too.
fn check_frontend(text: &str) -> Result<(), TestCaseError> {
    let (pp, sema) = options();
    let checked = frontend::check("fuzz.cl", text, &pp, &sema);
    let log = checked.log();
    let errors = checked.diagnostics.error_count();
    let headers: Vec<&str> = log
        .lines()
        .filter_map(|l| header_kind(l, "fuzz.cl"))
        .collect();
    let error_headers = headers.iter().filter(|k| **k == "error").count();
    prop_assert_eq!(error_headers, errors, "log:\n{}", log);
    prop_assert!(
        log.is_empty() || header_kind(log.lines().next().unwrap_or(""), "fuzz.cl").is_some(),
        "the log does not start with a diagnostic header:\n{}",
        log
    );
    Ok(())
}

// ---- Programs from the grammar ----

/// Picks among alternatives from a list of random numbers; once they run out every pick is
/// 0, the simplest alternative, so shrinking the list simplifies the program.
struct Gen {
    choices: Vec<u32>,
    at: usize,
    /// Names of the scalar variables declared so far in the function, by type.
    scopes: Vec<(Ty, String)>,
    fresh: usize,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    Int,
    UInt,
    Float,
    Long,
    Int4,
    UInt4,
    Float4,
    Float2,
}

const TYPES: [Ty; 8] = [
    Ty::Int,
    Ty::UInt,
    Ty::Float,
    Ty::Long,
    Ty::Int4,
    Ty::UInt4,
    Ty::Float4,
    Ty::Float2,
];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::UInt => "uint",
            Ty::Float => "float",
            Ty::Long => "long",
            Ty::Int4 => "int4",
            Ty::UInt4 => "uint4",
            Ty::Float4 => "float4",
            Ty::Float2 => "float2",
        }
    }

    fn lanes(self) -> usize {
        match self {
            Ty::Int4 | Ty::UInt4 | Ty::Float4 => 4,
            Ty::Float2 => 2,
            _ => 1,
        }
    }

    fn element(self) -> Ty {
        match self {
            Ty::Int4 => Ty::Int,
            Ty::UInt4 => Ty::UInt,
            Ty::Float4 | Ty::Float2 => Ty::Float,
            t => t,
        }
    }

    fn is_float(self) -> bool {
        self.element() == Ty::Float
    }
}

impl Gen {
    fn new(choices: Vec<u32>) -> Gen {
        Gen {
            choices,
            at: 0,
            scopes: Vec::new(),
            fresh: 0,
        }
    }

    fn pick(&mut self, n: usize) -> usize {
        let c = self.choices.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        c as usize % n.max(1)
    }

    fn ty(&mut self) -> Ty {
        TYPES[self.pick(TYPES.len())]
    }

    /// A literal of `ty`.
    fn literal(&mut self, ty: Ty) -> String {
        let n = self.pick(100);
        let scalar = match ty.element() {
            Ty::Float => format!("{n}.5f"),
            Ty::UInt => format!("{n}u"),
            Ty::Long => format!("{n}L"),
            _ => format!("{n}"),
        };
        if ty.lanes() == 1 {
            scalar
        } else {
            format!("({})({scalar})", ty.name())
        }
    }

    /// A variable of `ty` in scope, if any.
    fn variable(&mut self, ty: Ty) -> Option<String> {
        let names: Vec<String> = self
            .scopes
            .iter()
            .filter(|(t, _)| *t == ty)
            .map(|(_, n)| n.clone())
            .collect();
        (!names.is_empty()).then(|| names[self.pick(names.len())].clone())
    }

    /// An expression meant to have type `ty` (one time in 16, of any type: a type error
    /// or an implicit conversion).
    fn expr(&mut self, ty: Ty, depth: usize) -> String {
        if depth == 0 || self.pick(4) == 0 {
            return match self.variable(ty) {
                Some(v) if self.pick(3) != 0 => v,
                _ => self.literal(ty),
            };
        }
        let d = depth - 1;
        match self.pick(16) {
            0 => {
                let other = self.ty();
                self.expr(other, d)
            }
            1..=3 => {
                let ops: &[&str] = if ty.is_float() {
                    &["+", "-", "*", "/"]
                } else {
                    &["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]
                };
                let op = ops[self.pick(ops.len())];
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                // A scalar operand with a vector one is widened (6.2.6).
                if ty.lanes() > 1 && self.pick(4) == 0 {
                    let s = self.expr(ty.element(), d);
                    return format!("({a} {op} {s})");
                }
                format!("({a} {op} {b})")
            }
            4 => {
                let a = self.expr(ty, d);
                let op = if ty.is_float() {
                    ["-", "+"][self.pick(2)]
                } else {
                    ["-", "~", "+"][self.pick(3)]
                };
                format!("{op}{a}")
            }
            5 => self.call(ty, d),
            6 => self.call(ty, d),
            7 => self.conversion(ty, d),
            8 => self.swizzle(ty, d),
            9 => {
                let c = self.condition(d);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("({c} ? {a} : {b})")
            }
            10 if ty.lanes() > 1 => {
                // A vector literal from scalars and smaller vectors.
                let mut parts = Vec::new();
                let mut lanes = 0;
                while lanes < ty.lanes() {
                    if ty.lanes() - lanes >= 2 && ty.is_float() && self.pick(3) == 0 {
                        parts.push(self.expr(Ty::Float2, d));
                        lanes += 2;
                    } else {
                        parts.push(self.expr(ty.element(), d));
                        lanes += 1;
                    }
                }
                format!("({})({})", ty.name(), parts.join(", "))
            }
            11 => match self.variable(ty) {
                Some(v) => {
                    let e = self.expr(ty, d);
                    let op = ["=", "+=", "*=", "-="][self.pick(4)];
                    format!("({v} {op} {e})")
                }
                None => self.literal(ty),
            },
            12 if ty == Ty::Int => {
                let i = self.expr(Ty::Int, d);
                match self.pick(7) {
                    0 => format!("in[({i}) & 7]"),
                    1 => format!("((int[2]){{ {i}, 3 }})[1]"),
                    2 => format!("((struct S){{ .a = {i} }}).a"),
                    3 => format!("(int)tbl[({i}) & 3] + B"),
                    4 => format!("*(in + (({i}) & 7)) + (&s)->c[0]"),
                    5 => format!("(int)(&in[4] - in) + (int)(({i}) > 0 && n < 3)"),
                    _ => "s.a + s.c[1] + (int)sizeof(struct S) + vec_step(int4)".to_string(),
                }
            }
            12 if ty == Ty::Float => {
                let f = self.expr(Ty::Float, d);
                match self.pick(3) {
                    0 => format!("out[{}]", self.pick(8)),
                    1 => format!("((struct S){{ 1, {f} }}).b"),
                    _ => format!("(s.b + {f})"),
                }
            }
            13 if ty.lanes() == 1 => {
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                let op = ["<", ">", "==", "!=", "<=", "&&", "||"][self.pick(7)];
                format!("({})({a} {op} {b})", ty.name())
            }
            14 if ty.lanes() == 4 && !ty.is_float() => {
                // A vector comparison gives -1 per true lane (6.3.d).
                let (a, b) = (self.expr(Ty::Float4, d), self.expr(Ty::Float4, d));
                format!("({})({a} < {b})", ty.name())
            }
            _ => self.expr(ty, d),
        }
    }

    /// A condition: an int-valued scalar expression.
    fn condition(&mut self, depth: usize) -> String {
        let ty = [Ty::Int, Ty::Float, Ty::UInt][self.pick(3)];
        let (a, b) = (self.expr(ty, depth), self.expr(ty, depth));
        let op = ["<", ">", "==", "!=", "<="][self.pick(5)];
        format!("{a} {op} {b}")
    }

    /// A builtin call returning `ty`.
    fn call(&mut self, ty: Ty, d: usize) -> String {
        let t = ty.name();
        if ty.is_float() {
            match self.pick(8) {
                0 => format!("sin({})", self.expr(ty, d)),
                1 => format!("sqrt(fabs({}))", self.expr(ty, d)),
                2 => format!("fmax({}, {})", self.expr(ty, d), self.expr(ty, d)),
                3 => format!(
                    "mix({}, {}, {})",
                    self.expr(ty, d),
                    self.expr(ty, d),
                    self.expr(Ty::Float, d)
                ),
                4 => format!(
                    "clamp({}, {}, {})",
                    self.expr(ty, d),
                    self.expr(Ty::Float, d),
                    self.expr(Ty::Float, d)
                ),
                5 if ty == Ty::Float => {
                    format!(
                        "dot({}, {})",
                        self.expr(Ty::Float4, d),
                        self.expr(Ty::Float4, d)
                    )
                }
                5 if ty == Ty::Float4 => {
                    format!("cross({}, {})", self.expr(ty, d), self.expr(ty, d))
                }
                6 => format!("mad({0}, {0}, {1})", self.expr(ty, d), self.expr(ty, d)),
                _ => format!("select({}, {}, {})", self.expr(ty, d), self.expr(ty, d), {
                    let mask = if ty.lanes() == 1 {
                        Ty::Int
                    } else if ty.lanes() == 4 {
                        Ty::Int4
                    } else {
                        Ty::Int
                    };
                    self.expr(mask, d)
                }),
            }
        } else {
            match self.pick(7) {
                0 => format!("max({}, {})", self.expr(ty, d), self.expr(ty, d)),
                1 => format!("min({}, {})", self.expr(ty, d), self.expr(ty.element(), d)),
                2 => format!(
                    "clamp({}, {}, {})",
                    self.expr(ty, d),
                    self.expr(ty, d),
                    self.expr(ty, d)
                ),
                // A scalar count for a vector: splatted (clang's rule).
                3 => format!(
                    "rotate({}, {})",
                    self.expr(ty, d),
                    self.expr(ty.element(), d)
                ),
                4 => format!("popcount({})", self.expr(ty, d)),
                5 if ty == Ty::Int => "(int)get_global_id(0)".to_string(),
                5 => format!("({t})abs({})", self.expr(ty, d)),
                _ => format!("mul24({}, {})", self.expr(ty, d), self.expr(ty, d)),
            }
        }
    }

    /// A conversion to `ty` from a value of the same shape: a cast, `convert_`, `as_`.
    fn conversion(&mut self, ty: Ty, d: usize) -> String {
        let from = match ty.lanes() {
            4 => [Ty::Int4, Ty::UInt4, Ty::Float4][self.pick(3)],
            2 => Ty::Float2,
            _ => [Ty::Int, Ty::UInt, Ty::Float, Ty::Long][self.pick(4)],
        };
        let e = self.expr(from, d);
        match self.pick(3) {
            0 if ty.lanes() == 1 => format!("({})({e})", ty.name()),
            1 => {
                let sat = if ty.is_float() { "" } else { "_sat" };
                let round = ["", "_rte", "_rtz", "_rtp", "_rtn"][self.pick(5)];
                format!("convert_{}{sat}{round}({e})", ty.name())
            }
            _ if ty.lanes() == from.lanes() && ty != Ty::Long && from != Ty::Long => {
                format!("as_{}({e})", ty.name())
            }
            _ => format!("convert_{}({e})", ty.name()),
        }
    }

    /// Lanes of a vector: `v.wzyx`, `v.s01`, `v.hi`, `v.x`.
    fn swizzle(&mut self, ty: Ty, d: usize) -> String {
        let source = [Ty::Int4, Ty::UInt4, Ty::Float4]
            .into_iter()
            .find(|s| s.element() == ty.element())
            .unwrap_or(Ty::Float4);
        let v = self.expr(source, d);
        let lanes = match ty.lanes() {
            1 => ["x", "y", "s3", "w"][self.pick(4)],
            2 => ["xy", "hi", "odd", "s21"][self.pick(4)],
            _ => ["wzyx", "xxyy", "s0123", "zwxy"][self.pick(4)],
        };
        // A literal needs parentheses before the dot: `(1.5f).x` is not `1.5f.x`.
        format!("({v}).{lanes}")
    }

    fn declare(&mut self, ty: Ty) -> String {
        self.fresh += 1;
        let name = format!("v{}", self.fresh);
        self.scopes.push((ty, name.clone()));
        name
    }

    /// A statement of a function body.
    fn stmt(&mut self, depth: usize, out: &mut String, indent: usize) {
        let pad = "    ".repeat(indent);
        let d = depth.saturating_sub(1);
        match self.pick(if depth == 0 { 3 } else { 10 }) {
            0 => {
                let ty = self.ty();
                let e = self.expr(ty, 3);
                let name = self.declare(ty);
                out.push_str(&format!("{pad}{} {name} = {e};\n", ty.name()));
            }
            1 => {
                let e = self.expr(Ty::Float, 3);
                let i = self.pick(8);
                out.push_str(&format!("{pad}out[{i}] = {e};\n"));
            }
            2 => {
                let ty = self.ty();
                let e = self.expr(ty, 3);
                out.push_str(&format!("{pad}{e};\n"));
            }
            3 => {
                let c = self.condition(2);
                out.push_str(&format!("{pad}if ({c}) {{\n"));
                self.block(d, out, indent + 1);
                out.push_str(&format!("{pad}}} else {{\n"));
                self.block(d, out, indent + 1);
                out.push_str(&format!("{pad}}}\n"));
            }
            4 => {
                let mark = self.scopes.len();
                let name = self.declare(Ty::Int);
                let n = self.pick(5);
                out.push_str(&format!(
                    "{pad}for (int {name} = 0; {name} < {n}; {name}++) {{\n"
                ));
                self.block(d, out, indent + 1);
                self.scopes.truncate(mark);
                out.push_str(&format!("{pad}}}\n"));
            }
            5 => {
                let c = self.condition(1);
                out.push_str(&format!("{pad}while ({c}) {{\n"));
                self.block(d, out, indent + 1);
                out.push_str(&format!("{pad}    break;\n{pad}}}\n"));
            }
            6 => {
                let e = self.expr(Ty::Int, 2);
                out.push_str(&format!("{pad}switch ({e}) {{\n{pad}case 0:\n"));
                self.block(d, out, indent + 1);
                out.push_str(&format!("{pad}    break;\n{pad}default:\n"));
                self.block(d, out, indent + 1);
                out.push_str(&format!("{pad}}}\n"));
            }
            7 => {
                self.fresh += 1;
                let label = format!("l{}", self.fresh);
                let c = self.condition(1);
                out.push_str(&format!(
                    "{pad}barrier(CLK_LOCAL_MEM_FENCE);\n{pad}if ({c}) goto {label};\n{pad}{label}: ;\n"
                ));
            }
            8 => {
                let v = self.expr(Ty::Float4, 2);
                let fields = [
                    ".a = 1",
                    ".b = 2.0f",
                    ".c[1] = 3",
                    "[0] = 1",
                    "4, 5.0f, { 6, 7 }",
                    "",
                ];
                let init = fields[self.pick(fields.len())];
                let name = self.declare(Ty::Float4);
                out.push_str(&format!(
                    "{pad}{{ struct S t = {{ {init} }}; t.b += s.a; }}\n{pad}float4 {name} = {v};\n"
                ));
            }
            _ => {
                out.push_str(&format!("{pad}{{\n"));
                let mark = self.scopes.len();
                self.block(d, out, indent + 1);
                self.scopes.truncate(mark);
                out.push_str(&format!("{pad}}}\n"));
            }
        }
    }

    fn block(&mut self, depth: usize, out: &mut String, indent: usize) {
        let mark = self.scopes.len();
        for _ in 0..1 + self.pick(4) {
            self.stmt(depth, out, indent);
        }
        self.scopes.truncate(mark);
    }

    /// A program: a struct with an anonymous union, maybe a helper function, a kernel.
    fn program(&mut self) -> String {
        let mut p = String::from(
            "struct S { int a; union { float b; uint u; }; int c[2]; };\n\
             typedef float4 vec_t;\n\
             constant float tbl[4] = { 1.0f, 2.0f, 3.0f, 4.0f };\n\
             enum E { A, B = 3 };\n",
        );
        if self.pick(3) == 0 {
            p.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        }
        let helper = self.pick(2) == 0;
        if helper {
            self.scopes = vec![(Ty::Float, "x".into()), (Ty::Int4, "iv".into())];
            let ret = self.ty();
            p.push_str(&format!("{} helper(float x, int4 iv) {{\n", ret.name()));
            p.push_str("    global float *out = 0; int in[8] = { 1 };\n");
            p.push_str("    struct S s = { 1, { 2.0f }, { 3, 4 } };\n");
            self.block(2, &mut p, 1);
            let e = self.expr(ret, 3);
            p.push_str(&format!("    return {e};\n}}\n"));
        }
        self.scopes = vec![
            (Ty::Int, "n".into()),
            (Ty::Float4, "fv".into()),
            (Ty::UInt4, "uv".into()),
            (Ty::Int, "i".into()),
            (Ty::Float, "f".into()),
            (Ty::Float2, "f2".into()),
            (Ty::Int4, "iv".into()),
            (Ty::Long, "l".into()),
            (Ty::UInt, "w".into()),
        ];
        p.push_str(
            "kernel void k(global float *out, global const int *in, int n, float4 fv, uint4 uv) {\n\
             \x20   int i = get_global_id(0); float f = out[0]; float2 f2 = fv.xy;\n\
             \x20   int4 iv = as_int4(fv); long l = i; uint w = uv.x;\n\
             \x20   struct S s = { .a = n, .b = f, .c = { 1, 2 } };\n",
        );
        self.block(3, &mut p, 1);
        if helper {
            p.push_str("    helper(f, iv);\n");
        }
        p.push_str("}\n");
        p
    }
}

// ---- Mutations ----

/// Text a mutation may insert: punctuation that unbalances, keywords in odd places,
/// preprocessor lines, half literals and comments.
const SNIPPETS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ".",
    "->",
    "?",
    ":",
    "=",
    "*",
    "&",
    "#",
    "\n#define X (",
    "\n#if 1\n",
    "\n#endif\n",
    "\n#include \"none.h\"\n",
    "##",
    "\"",
    "'",
    "/*",
    "//",
    "\\\n",
    "0x",
    "1e",
    "1.0e+",
    "0x1p",
    "float4",
    "int",
    "struct S",
    "union",
    "enum E {",
    "typedef",
    "kernel",
    "global",
    "local",
    "constant",
    "__private",
    "image2d_t",
    "sampler_t",
    "event_t",
    "half",
    "double",
    "bool",
    "void",
    "return",
    "break",
    "case 1:",
    "default:",
    "goto l;",
    "sizeof",
    "vec_step",
    "(int[])",
    "(struct S)",
    ".xyzw",
    ".s0123456789abcdef",
    ".hi",
    ".lo.lo",
    "convert_int4_sat_rte",
    "as_float4",
    "get_global_id",
    "barrier",
    "printf(\"%v4f\", ",
    "shuffle2",
    "vload4(0, ",
    "__attribute__((",
    "))",
    "...",
    "read_only",
    "volatile",
    "restrict",
    "const",
    "static",
    "extern",
    "inline",
    "-2147483648",
    "18446744073709551615",
    "'\\x'",
    "L'a'",
    "u8\"",
    "\0",
    "é",
];

/// Applies `edits` (kind, position, length or snippet) to `text`, on character
/// boundaries: deletes, duplicates, moves, inserts snippets, truncates.
fn mutate(text: &str, edits: &[(u8, usize, usize)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(kind, at, arg) in edits {
        let len = chars.len();
        let at = if len == 0 { 0 } else { at % (len + 1) };
        let end = (at + arg % 40).min(len);
        match kind % 5 {
            0 => {
                chars.drain(at..end);
            }
            1 => {
                let copy: Vec<char> = chars[at..end].to_vec();
                let to = if len == 0 { 0 } else { arg % (len + 1) };
                chars.splice(to..to, copy);
            }
            2 => {
                let s = SNIPPETS[arg % SNIPPETS.len()];
                chars.splice(at..at, s.chars());
            }
            3 => {
                let piece: Vec<char> = chars.drain(at..end).collect();
                let to = if chars.is_empty() {
                    0
                } else {
                    arg.wrapping_mul(7919) % (chars.len() + 1)
                };
                chars.splice(to..to, piece);
            }
            _ => chars.truncate(at),
        }
    }
    chars.into_iter().collect()
}

/// The corpus programs (`tests/corpus/*.cl`).
fn corpus() -> Vec<String> {
    common::cl_files("corpus")
        .iter()
        .map(|p| fs::read_to_string(p).unwrap())
        .collect()
}

fn edits() -> impl Strategy<Value = Vec<(u8, usize, usize)>> {
    prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..8)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_programs_get_results_or_located_errors(
        choices in prop::collection::vec(any::<u32>(), 0..600)
    ) {
        let program = Gen::new(choices).program();
        check_frontend(&program)?;
    }

    #[test]
    fn mutated_generated_programs_get_results_or_located_errors(
        choices in prop::collection::vec(any::<u32>(), 0..400),
        edits in edits(),
    ) {
        let program = Gen::new(choices).program();
        check_frontend(&mutate(&program, &edits))?;
    }

    #[test]
    fn mutated_corpus_programs_get_results_or_located_errors(
        which in any::<usize>(),
        edits in edits(),
    ) {
        thread_local! {
            static CORPUS: Vec<String> = corpus();
        }
        let text = CORPUS.with(|c| c[which % c.len()].clone());
        check_frontend(&mutate(&text, &edits))?;
    }
}

/// The generator makes well-typed programs often enough to reach past the type errors:
/// of 200 fixed seeds, some go through the frontend without a single error.
#[test]
fn generated_programs_are_often_well_typed() {
    let (pp, sema) = options();
    let mut clean = 0;
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..200 {
        let choices: Vec<u32> = (0..400)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 32) as u32
            })
            .collect();
        let program = Gen::new(choices).program();
        let checked = frontend::check("gen.cl", &program, &pp, &sema);
        if !checked.diagnostics.has_errors() {
            clean += 1;
        }
    }
    assert!(
        clean >= 20,
        "only {clean} of 200 generated programs are clean"
    );
}
