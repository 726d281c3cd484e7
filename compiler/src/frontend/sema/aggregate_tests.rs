//! Anonymous members, nested designators and compound literals: the typed tree they give
//! and the exact diagnostics of their misuses. (Their values at run time:
//! `tests/run_aggregates.rs`.)

use super::super::tir::{Constant, Init, StmtKind};
use super::super::types::{Scalar, Type};
use super::tests::{folded, ints, log, options};

/// The aggregate initializer of the first variable declared in the first function:
/// (byte offset, folded integer) per initialized scalar.
fn aggregate_of(source: &str) -> Vec<(u64, u64)> {
    let (pp, sema) = options();
    let checked = super::super::check("t.cl", source, &pp, &sema);
    assert!(!checked.diagnostics.has_errors(), "{}", checked.log());
    let body = checked.program.functions[0].body.as_ref().expect("a body");
    let Some(StmtKind::Decl {
        init: Some(Init::Aggregate(items)),
        ..
    }) = body.first().map(|s| &s.kind)
    else {
        panic!("no aggregate initializer");
    };
    items
        .iter()
        .map(|(offset, e)| match &e.kind {
            super::super::tir::ExprKind::Const(Constant::Int(v)) => (*offset, v[0]),
            other => panic!("not an integer constant: {other:?}"),
        })
        .collect()
}

#[test]
fn nested_designators_give_byte_offsets() {
    // P is 8 bytes; Q: a at 0, arr at 8.
    let q = "typedef struct { int x, y; } P; typedef struct { P a; int arr[3]; } Q;\n";
    assert_eq!(
        aggregate_of(&format!(
            "{q}kernel void k() {{ Q v = {{ .a.y = 1, .arr[1] = 4, 5 }}; }}"
        )),
        [(4, 1), (12, 4), (16, 5)]
    );
    assert_eq!(
        aggregate_of(&format!(
            "{q}kernel void k() {{ P v[3] = {{ [2].x = 3, [0] = {{ 8, 9 }}, [1].y = 6, 7 }}; }}"
        )),
        [(16, 3), (0, 8), (4, 9), (12, 6), (16, 7)]
    );
    // Through an anonymous union: .b is at 4, the item after it continues at d (8).
    assert_eq!(
        aggregate_of(
            "struct S { int a; union { int b; float c; }; int d; };\n\
             kernel void k() { struct S v = { .b = 5, 6 }; }"
        ),
        [(4, 5), (8, 6)]
    );
}

#[test]
fn a_scalar_in_braces_is_its_expression() {
    assert_eq!(
        folded("kernel void k() { int x = { 5 }; }"),
        (ints(&[5], Scalar::Int), Type::int())
    );
}

#[test]
fn misuses_have_exact_diagnostics() {
    let logs: Vec<String> = [
        "struct S { int a; union { int a; float b; }; }; kernel void k() {}",
        "struct S { int; }; kernel void k() {}",
        "kernel void k() { int a[2] = { [2] = 1 }; }",
        "kernel void k() { struct { int x; } s = { .x.y = 1 }; }",
        "kernel void k() { struct { int x; } s = { .y = 1 }; }",
        "kernel void k() { int x = { .a = 1 }; }",
        "kernel void k() { int x = { }; }",
        "constant struct P { int x; } c = (struct P){ 1 }; kernel void k() {}",
        "kernel void k() { int x = ((struct T){ 1 }).a; }",
    ]
    .iter()
    .map(|s| log(s))
    .collect();
    // (message, the caret's column - 1, the caret and its range) of each.
    let expected = [
        (
            "t.cl:1:19: error: duplicate member 'a'",
            18,
            "^~~~~~~~~~~~~~~~~~~~~~~~~~",
        ),
        (
            "t.cl:1:12: error: declaration does not declare anything",
            11,
            "^~~~",
        ),
        (
            "t.cl:1:32: error: array designator index (2) exceeds array bounds (2)",
            31,
            "^~~~~~~",
        ),
        (
            "t.cl:1:43: error: designator into a value of non-aggregate type 'int'",
            42,
            "^~~~~~~~",
        ),
        (
            "t.cl:1:44: error: field designator 'y' does not refer to any field",
            43,
            "^",
        ),
        (
            "t.cl:1:29: error: designator in the initializer of a scalar",
            28,
            "^~~~~~",
        ),
        (
            "t.cl:1:27: error: scalar initializer cannot be empty",
            26,
            "^~~",
        ),
        (
            "t.cl:1:34: error: compound literals are not supported at program scope",
            33,
            "^~~~~~~~~~~~~~~",
        ),
        (
            "t.cl:1:28: error: compound literal has incomplete type 'struct T'",
            27,
            "^~~~~~~~~~~~~~~",
        ),
    ];
    assert_eq!(logs.len(), expected.len());
    for (got, (message, pad, caret)) in logs.iter().zip(expected) {
        let lines: Vec<&str> = got.lines().collect();
        assert_eq!(lines.len(), 3, "{got}");
        assert_eq!(lines[0], message);
        assert_eq!(lines[2], format!("{}{caret}", " ".repeat(pad)));
    }
}
