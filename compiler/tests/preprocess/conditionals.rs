//! Conditional inclusion: `#if` arithmetic in intmax_t/uintmax_t, `defined`, the group
//! structure, skipped groups, and the errors.

use super::{clean, norm, run};

/// Whether `#if expr` takes its group (with `X` defined as 3), and the diagnostics.
fn cond(expr: &str) -> (bool, Vec<String>) {
    let r = run(&format!(
        "#define X 3\n#if {expr}\nyes\n#else\nno\n#endif\n"
    ));
    let taken = match r.text().as_str() {
        "yes" => true,
        "no" => false,
        other => panic!("#if {expr} gave {other:?}"),
    };
    (taken, r.messages())
}

#[track_caller]
fn check(expr: &str, expected: bool) {
    assert_eq!(cond(expr), (expected, Vec::new()), "#if {expr}");
}

#[test]
fn arithmetic_follows_c99_conversions() {
    for (expr, expected) in [
        ("-1 > 0u", true),
        ("-1 > 0", false),
        ("0xffffffffffffffff == -1", true),
        ("0x7fffffffffffffff > 0", true),
        ("-1 / 2 == 0", true),
        ("-7 % 3 == -1", true),
        ("-7 / 2u == 0x7ffffffffffffffc", true),
        ("-1 >> 63 == -1", true),
        ("-1u >> 63 == 1", true),
        ("1u << 63 > 0", true),
        ("(0 ? 1u : -1) > 0", true),
        ("(1 ? -1 : 0u) > 0", true),
        ("(1 ? -1 : 0) > 0", false),
        ("~0u == 0xffffffffffffffff", true),
        ("-9223372036854775807 - 1 < 0", true),
        (
            "010 == 8 && 0x10 == 16 && 0X1fUL == 31 && 7LL == 7 && 0 == 0u",
            true,
        ),
        ("(2 || 3) == 1 && (2 && 3) == 1 && !5 == 0", true),
        (
            "1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 1 << 2 + 1 == 8",
            true,
        ),
        ("5 & 3 | 8 ^ 1 == 9", true),
        ("(1, 0)", false),
        ("1 ? 2 : 3 ? 0 : 0", true),
        ("0 ? 1 : 0 ? 1 : 1", true),
        ("+3 == - -3", true),
        (
            "'a' == 97 && '\\n' == 10 && '\\0' == 0 && '\\'' == 39",
            true,
        ),
        ("'\\377' < 0 && '\\xff' == -1 && '\\x7f' == 127", true),
    ] {
        check(expr, expected);
    }
    assert_eq!(
        cond("'ab' == 24930"),
        (true, vec!["multi-character character constant".to_string()])
    );
}

#[test]
fn identifiers_defined_and_booleans() {
    check("defined X && defined(X) && X == 3", true);
    check("defined Y || defined(Y)", false);
    check("!defined Y", true);
    check("UNDEFINED_NAME == 0", true);
    // An undefined function-like name is 0 too, which leaves `0 (1, 2)`: garbage.
    let (taken, messages) = cond("UNDEFINED_FUNCTION(1, 2) == 0");
    assert!(!taken);
    assert_eq!(
        messages,
        ["token is not a valid binary operator in a preprocessor subexpression"]
    );
    // OpenCL C's `true` and `false` are keywords worth 1 and 0 (clang agrees).
    check("true && !false", true);
    // `defined` produced by a macro works too.
    assert_eq!(
        clean("#define X 1\n#define D defined(X)\n#if D\nyes\n#endif"),
        "yes"
    );
    assert_eq!(
        clean("#define ON(x) defined(x)\n#if ON(NOPE)\nno\n#else\nyes\n#endif"),
        "yes"
    );
}

#[test]
fn short_circuit_operands_are_not_evaluated() {
    check("0 && 1 / 0", false);
    check("1 || 1 / 0", true);
    check("1 ? 2 : 1 / 0", true);
    check("0 ? 1 % 0 : 1", true);
    check("0 && (0x7fffffffffffffff + 1)", false);
}

#[test]
fn overflow_wraps_with_a_warning() {
    let overflow = vec!["integer overflow in preprocessor expression".to_string()];
    assert_eq!(cond("0x7fffffffffffffff + 1 < 0"), (true, overflow.clone()));
    assert_eq!(
        cond("-(-9223372036854775807 - 1) < 0"),
        (true, overflow.clone())
    );
    assert_eq!(
        cond("(-9223372036854775807 - 1) / -1 < 0"),
        (true, overflow.clone())
    );
    assert_eq!(
        cond("4611686018427387904 * 2 < 0"),
        (true, overflow.clone())
    );
    assert_eq!(cond("1 << 64 == 0"), (true, overflow.clone()));
    assert_eq!(cond("1 << 63 < 0"), (true, overflow.clone()));
    assert_eq!(cond("0xffffffffffffffffu + 1 == 0"), (true, vec![]));
    assert_eq!(
        cond("18446744073709551615 == -1"),
        (true, vec!["integer literal is too large to be represented in a signed integer type, interpreting as unsigned".to_string()])
    );
}

#[test]
fn errors_make_the_condition_false() {
    for (expr, message) in [
        ("1 / 0", "division by zero in preprocessor expression"),
        (
            "1 % (X - 3)",
            "remainder by zero in preprocessor expression",
        ),
        ("1 +", "expected value in expression"),
        ("(1", "expected ')' in preprocessor expression"),
        (
            "1 2",
            "token is not a valid binary operator in a preprocessor subexpression",
        ),
        (
            "X = 3",
            "token is not a valid binary operator in a preprocessor subexpression",
        ),
        ("1.0", "floating point literal in preprocessor expression"),
        ("1e3", "floating point literal in preprocessor expression"),
        (
            "\"s\"",
            "invalid token at start of a preprocessor expression",
        ),
        ("1 ? 2", "expected ':' in preprocessor expression"),
        ("09", "invalid digit '9' in octal constant"),
        ("0x", "invalid suffix 'x' on integer constant"),
        ("1z", "invalid suffix 'z' on integer constant"),
        ("1lL", "invalid suffix 'lL' on integer constant"),
        (
            "99999999999999999999",
            "integer literal is too large to be represented in any integer type",
        ),
        ("defined", "macro name missing"),
        ("defined(X", "missing ')' after 'defined'"),
        ("defined 3", "macro name must be an identifier"),
        ("''", "empty character constant"),
    ] {
        let (taken, messages) = cond(expr);
        assert!(!taken, "#if {expr}");
        assert_eq!(
            messages.first().map(String::as_str),
            Some(message),
            "#if {expr}"
        );
    }
    let r = run("#if\n#endif\n#if 1\n#elif\n#endif\n#if 0\n#elif\n#endif");
    assert_eq!(
        r.messages(),
        ["#if with no expression", "#elif with no expression"]
    );
    let r = run("#if (1\n#endif");
    assert_eq!(
        r.log(),
        "t.cl:1:7: error: expected ')' in preprocessor expression\n#if (1\n      ^\n\
         t.cl:1:5: note: to match this '('\n#if (1\n    ^\n"
    );
    // Deep nesting is an error, not a stack overflow.
    let deep = format!("#if {}1{}\n#endif", "(".repeat(5000), ")".repeat(5000));
    let messages = run(&deep).messages();
    assert!(
        messages[0].starts_with("preprocessor expression nested too deeply"),
        "{messages:?}"
    );
    let deep = format!("#if {}1\n#endif", "- !".repeat(3000));
    assert!(run(&deep).messages()[0].starts_with("preprocessor expression nested too deeply"));
}

#[test]
fn groups_elif_else_and_nesting() {
    let text = "#define V 2\n#if V == 1\none\n#elif V == 2\ntwo\n#elif V == 2\nagain\n#else\nother\n#endif";
    assert_eq!(clean(text), "two");
    assert_eq!(
        clean("#ifdef NOPE\na\n#else\nb\n#endif\n#ifndef NOPE\nc\n#endif"),
        "b c"
    );
    let nested =
        "#if 0\n#if 1\nno\n#else\nno\n#endif\n#elif 1\n#if 0\nno\n#elif 1\nyes\n#endif\n#endif";
    assert_eq!(clean(nested), "yes");
    // A later #elif is not evaluated once a group was taken (its garbage is not reported).
    assert_eq!(clean("#if 1\na\n#elif 1/0\nb\n#endif"), "a");
    assert_eq!(clean("#if 0\n#elif 1\na\n#elif garbage (\nb\n#endif"), "a");
}

#[test]
fn skipped_groups_are_not_tokens() {
    // Only directive names are looked at: no errors for bad directives, lone quotes or
    // unknown directives in skipped groups.
    assert_eq!(
        clean("#if 0\ndon't\n#unknown\n#if garbage (\n#endif\n#define 3\n#endif\nok"),
        "ok"
    );
    // The same lines outside a skipped group are errors.
    let r = run("don't\n");
    assert_eq!(r.messages(), ["missing terminating ' character"]);
    let r = run("#unknown x\n#if 0\n#else\n#unknown\n#endif\n");
    assert_eq!(
        r.log(),
        "t.cl:1:2: error: invalid preprocessing directive\n#unknown x\n ^~~~~~~\n\
         t.cl:4:2: error: invalid preprocessing directive\n#unknown\n ^~~~~~~\n"
    );
}

#[test]
fn unbalanced_conditionals_are_reported() {
    let r = run("#if 1\nint x;\n#ifdef Y\nint y;\n");
    assert_eq!(r.text(), norm("int x;"));
    assert_eq!(
        r.log(),
        "t.cl:1:1: error: unterminated conditional directive\n#if 1\n^~~\n\
         t.cl:3:1: error: unterminated conditional directive\n#ifdef Y\n^~~~~~\n"
    );
    let r = run("#endif\n#else\n#elif 1\n#if 1\n#else\n#else\n#elif 1\n#endif x\n");
    assert_eq!(
        r.messages(),
        [
            "#endif without #if",
            "#else without #if",
            "#elif without #if",
            "#else after #else",
            "#elif after #else",
            "extra tokens at end of #endif directive",
        ]
    );
    // A conditional cannot be closed by another file.
    let options = clift_compiler::frontend::preprocess::PreprocessOptions {
        headers: vec![
            ("open.h".into(), "#if 1\n".into()),
            ("close.h".into(), "#endif\n".into()),
        ],
        ..Default::default()
    };
    let r = super::run_with(
        "#include \"open.h\"\n#if 1\n#include \"close.h\"\n#endif\n",
        &options,
        Default::default(),
    );
    assert_eq!(
        r.messages(),
        ["unterminated conditional directive", "#endif without #if"]
    );
}
