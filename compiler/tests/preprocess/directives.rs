//! `#include`, `#line`, `#error`/`#warning`, `#pragma`/`_Pragma`, the null directive, and
//! `-D`/`-U`.

use clift_compiler::frontend::diag::Diagnostics;
use clift_compiler::frontend::preprocess::PreprocessOptions;
use clift_compiler::frontend::token::TokenKind;

use super::{clean, norm, run, run_with, scratch_dir};

fn with_headers(headers: &[(&str, &str)]) -> PreprocessOptions {
    PreprocessOptions {
        headers: headers
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
        ..PreprocessOptions::default()
    }
}

#[test]
fn embedded_headers() {
    let options = with_headers(&[
        ("a.h", "int a;\n#include \"sub/b.h\"\n"),
        ("sub/b.h", "int b;\n#include \"c.h\"\n#include <c.h>\n"),
        ("sub/c.h", "int c_beside_b;"),
        ("c.h", "int c_top;"),
    ]);
    let r = run_with(
        "#include \"a.h\"\n#include <c.h>\nint end;",
        &options,
        Diagnostics::new(),
    );
    assert_eq!(r.log(), "");
    // `"c.h"` from sub/b.h finds its neighbour first; `<c.h>` does not look there.
    assert_eq!(
        r.text(),
        norm("int a; int b; int c_beside_b; int c_top; int c_top; int end;")
    );
    // Tokens from a header point into it.
    let b = r.tokens.iter().find(|t| t.is_ident("b")).unwrap();
    assert_eq!(&*r.sources.file(b.span.file).name, "sub/b.h");
    // Header names may be macro expanded.
    let r = run_with(
        "#define H <c.h>\n#define Q \"a.h\"\n#include H\n#include Q",
        &options,
        Diagnostics::new(),
    );
    assert!(r.text().starts_with("int c_top ; int a ;"), "{}", r.text());
}

#[test]
fn include_directories_and_relative_lookup() {
    let dir = scratch_dir("include");
    let (inc, other) = (dir.join("inc"), dir.join("other"));
    std::fs::create_dir_all(inc.join("deeper")).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        inc.join("x.h"),
        "#include \"z.h\"\n#include \"deeper/w.h\"\nint x;\n",
    )
    .unwrap();
    std::fs::write(inc.join("z.h"), "int z_inc;\n").unwrap();
    std::fs::write(inc.join("deeper/w.h"), "#include \"../z.h\"\nint w;\n").unwrap();
    std::fs::write(other.join("z.h"), "int z_other;\n").unwrap();
    let options = PreprocessOptions {
        include_dirs: vec![other.clone(), inc.clone()],
        ..PreprocessOptions::default()
    };
    let r = run_with(
        "#include <x.h>\n#include <z.h>\n#include \"z.h\"\n__FILE__",
        &options,
        Diagnostics::new(),
    );
    assert_eq!(r.log(), "");
    // x.h's "z.h" is the one beside x.h, although -I lists other/ first; from the main
    // program (a string, no directory) both forms search -I in order.
    assert_eq!(
        r.text(),
        norm("int z_inc; int z_inc; int w; int x; int z_other; int z_other; \"t.cl\"")
    );
    // Embedded headers come before -I.
    let options = PreprocessOptions {
        headers: vec![("x.h".into(), "int embedded;".into())],
        ..options
    };
    assert_eq!(
        run_with("#include <x.h>", &options, Diagnostics::new()).text(),
        norm("int embedded;")
    );
    // A real main file: "x" is looked up beside it.
    let main = dir.join("main.cl");
    std::fs::write(&main, "#include \"inc/z.h\"\n").unwrap();
    let mut sources = clift_compiler::frontend::source::SourceMap::new();
    let id = sources.add(&main.display().to_string(), "#include \"inc/z.h\"\n");
    let mut diags = Diagnostics::new();
    let tokens = clift_compiler::frontend::preprocess::preprocess(
        &mut sources,
        id,
        &PreprocessOptions::default(),
        &mut diags,
    );
    assert_eq!(super::join(&tokens), norm("int z_inc;"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_and_malformed_includes() {
    let r = run("#include \"nope.h\"\n#include <nope.h>\nint after;");
    assert_eq!(r.text(), norm("int after;"));
    assert_eq!(
        r.log(),
        "t.cl:1:10: error: 'nope.h' file not found\n#include \"nope.h\"\n         ^~~~~~~~\n\
         t.cl:2:10: error: 'nope.h' file not found\n#include <nope.h>\n         ^~~~~~~~\n"
    );
    let r = run("#include\n#include nope\n#include <x.h\n#include \"\"\n");
    assert_eq!(
        r.messages(),
        [
            "expected \"FILENAME\" or <FILENAME>",
            "expected \"FILENAME\" or <FILENAME>",
            "missing terminating '>' character",
            "empty filename"
        ]
    );
}

#[test]
fn include_cycles_and_bombs_are_capped() {
    let options = with_headers(&[
        ("a.h", "#include \"b.h\"\nA\n"),
        ("b.h", "#include \"a.h\"\nB\n"),
    ]);
    let r = run_with("#include \"a.h\"\nend", &options, Diagnostics::new());
    assert_eq!(
        r.messages(),
        ["#include nested too deeply (more than 200 levels)"]
    );
    assert!(r.text().ends_with("B A end"));
    // A header including itself twice would open 2^200 files: the total is capped too.
    let options = with_headers(&[("bomb.h", "#include \"bomb.h\"\n#include \"bomb.h\"\nx\n")]);
    let start = std::time::Instant::now();
    let r = run_with("#include \"bomb.h\"\n", &options, Diagnostics::new());
    assert_eq!(
        r.messages(),
        [
            "#include nested too deeply (more than 200 levels)",
            "too many #include directives (more than 10000)"
        ]
    );
    assert!(start.elapsed().as_secs() < 30);
    // Guards and #pragma once stop a second inclusion.
    let options = with_headers(&[
        ("g.h", "#ifndef G_H\n#define G_H\nint g;\n#endif\n"),
        ("o.h", "#pragma once\nint o;\n"),
    ]);
    let r = run_with(
        "#include \"g.h\"\n#include \"g.h\"\n#include \"o.h\"\n#include <o.h>\n",
        &options,
        Diagnostics::new(),
    );
    assert_eq!((r.text(), r.log()), (norm("int g; int o;"), String::new()));
    // An #include inside macro arguments is refused, as clang does.
    let options = with_headers(&[("g.h", "int g;")]);
    let r = run_with(
        "#define F(x) x\nF(1\n#include \"g.h\"\n)",
        &options,
        Diagnostics::new(),
    );
    assert_eq!(
        r.messages(),
        ["embedding a #include directive within macro arguments is not supported"]
    );
}

#[test]
fn line_directive_renumbers_and_renames() {
    assert_eq!(
        clean("#line 100 \"foo.cl\"\n__LINE__ __FILE__\n#line 7\n__LINE__ __FILE__"),
        "100 \"foo.cl\" 7 \"foo.cl\""
    );
    assert_eq!(clean("#define L 40\n#line L\n__LINE__"), "40");
    assert_eq!(
        clean("# 12 \"gnu.cl\" 1 3\n__LINE__ __FILE__"),
        "12 \"gnu.cl\""
    );
    // Diagnostics use the new numbering and name.
    let r = run("#line 20 \"k.cl\"\n\n#error boom here\n");
    assert_eq!(
        r.log(),
        "k.cl:21:2: error: boom here\n#error boom here\n ^~~~~\n"
    );
    let r = run("#line x\n#line 4294967296\n#line 5 x\n#line 0x10\n");
    assert_eq!(
        r.messages(),
        [
            "#line directive requires a simple digit sequence",
            "#line number out of range",
            "invalid filename for #line directive",
            "#line directive requires a simple digit sequence",
        ]
    );
}

#[test]
fn error_and_warning_directives() {
    let r = run("#warning careful  now /* c */\n#error stop: \"x\"\nint x;");
    assert_eq!(r.text(), norm("int x;"));
    assert_eq!(
        r.log(),
        "t.cl:1:2: warning: careful  now /* c */\n#warning careful  now /* c */\n ^~~~~~~\n\
         t.cl:2:2: error: stop: \"x\"\n#error stop: \"x\"\n ^~~~~\n"
    );
    // -Werror makes #warning an error; -w drops it.
    let mut strict = Diagnostics::new();
    strict.warnings_are_errors = true;
    let r = run_with("#warning w\n", &PreprocessOptions::default(), strict);
    assert!(r.diags.has_errors());
    assert_eq!(r.log(), "t.cl:1:2: error: w\n#warning w\n ^~~~~~~\n");
    let mut quiet = Diagnostics::new();
    quiet.suppress_warnings = true;
    assert_eq!(
        run_with("#warning w\n", &PreprocessOptions::default(), quiet).log(),
        ""
    );
    // Not in skipped groups.
    assert_eq!(clean("#if 0\n#error no\n#endif\n#"), "");
}

#[test]
fn pragmas_become_single_tokens() {
    let text = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nint a;\n#pragma unroll\n#define N 8\n#pragma unroll N\n\
                #pragma OPENCL FP_CONTRACT ON\n  #  pragma   weird   stuff(\"x\") // c\n#pragma\n\
                _Pragma(\"OPENCL EXTENSION all : disable\") int x;\n#define P _Pragma(\"unroll \\\"2\\\"\") y\nP\n";
    let r = run(text);
    assert_eq!(r.log(), "");
    let pragmas: Vec<&str> = r
        .tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Pragma)
        .map(|t| &*t.text)
        .collect();
    assert_eq!(
        pragmas,
        [
            "OPENCL EXTENSION cl_khr_fp64 : enable",
            "unroll",
            "unroll 8",
            "OPENCL FP_CONTRACT ON",
            "weird stuff ( \"x\" )",
            "",
            "OPENCL EXTENSION all : disable",
            "unroll \"2\"",
        ]
    );
    assert_eq!(
        r.text()
            .split(' ')
            .filter(|w| ["int", "a", "x", "y", ";"].contains(w))
            .count(),
        7
    );
    // The token covers the line, from `#` to the last token.
    let first = &r.tokens[0];
    assert_eq!(
        (first.span.start, first.span.end),
        (
            0,
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable".len() as u32
        )
    );
    let weird = r
        .tokens
        .iter()
        .find(|t| t.text.starts_with("weird"))
        .unwrap();
    let start = text.find("#  pragma").unwrap() as u32;
    assert_eq!(
        (weird.span.start, weird.span.end),
        (start, text.find(" // c").unwrap() as u32)
    );
    // `_Pragma` spans the operator and its operand; from a macro, its site is the invocation.
    let p = r
        .tokens
        .iter()
        .find(|t| t.text.starts_with("unroll \""))
        .unwrap();
    assert_eq!(p.site.start as usize, text.rfind("\nP\n").unwrap() + 1);
    let r = run("_Pragma(1) _Pragma x");
    assert_eq!(
        r.messages(),
        [
            "_Pragma takes a parenthesized string literal",
            "_Pragma takes a parenthesized string literal"
        ]
    );
}

#[test]
fn command_line_defines_and_undefines() {
    let options = PreprocessOptions {
        defines: vec![
            ("A".into(), None),
            ("B".into(), Some("2".into())),
            ("SQ(x)".into(), Some("((x)*(x))".into())),
            ("C".into(), Some("a\nb".into())),
        ],
        undefines: vec!["B".into(), "__CLIFT__".into()],
        ..PreprocessOptions::default()
    };
    let r = run_with("A B SQ(3) C __CLIFT__", &options, Diagnostics::new());
    assert_eq!(
        (r.text(), r.log()),
        (norm("1 B ((3)*(3)) a b __CLIFT__"), String::new())
    );
    // -D after the predefined macros: redefining one warns, pointing at the command line.
    let options = PreprocessOptions {
        defines: vec![("CHAR_BIT".into(), Some("9".into()))],
        ..Default::default()
    };
    let r = run_with("CHAR_BIT", &options, Diagnostics::new());
    assert_eq!(r.text(), "9");
    assert_eq!(r.messages(), ["'CHAR_BIT' macro redefined"]);
    assert!(r.log().starts_with(
        "<command line>:1:9: warning: 'CHAR_BIT' macro redefined\n#define CHAR_BIT 9\n"
    ));
    let options = PreprocessOptions {
        defines: vec![("3".into(), None)],
        ..Default::default()
    };
    assert_eq!(
        run_with("", &options, Diagnostics::new()).messages(),
        ["macro name must be an identifier"]
    );
}

#[test]
fn null_directive_and_directive_spelling() {
    assert_eq!(clean("#\n# /* comment */\n  #  define X 1\nX"), "1");
    // A `#` that does not start a line is an ordinary token; so is one from a macro.
    assert_eq!(
        clean("a # define b\n#define H #\nH define c"),
        norm("a # define b # define c")
    );
}

#[test]
fn directives_inside_macro_arguments() {
    // Conditionals and definitions in the middle of an invocation take effect (as in GCC
    // and clang); a pragma there becomes part of the argument.
    let text = "#define F(x) [x]\nF(1\n#if 0\n2\n#else\n3\n#endif\n#define G 4\nG)\n";
    assert_eq!(clean(text), norm("[1 3 4]"));
    let r = run("#define F(x) x\nF(a\n#pragma unroll\nb)");
    assert_eq!(r.text(), "a unroll b");
    assert_eq!(r.tokens[1].kind, TokenKind::Pragma);
}
