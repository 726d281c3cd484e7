//! Semantic analysis through the whole frontend: each OpenCL C rule with its exact
//! result (a folded constant or a type) or its exact diagnostic.

use super::super::preprocess::PreprocessOptions;
use super::super::tir::{Constant, ConvertKind, Expr, ExprKind, Init, StmtKind};
use super::super::types::{Scalar, Type};
use super::Options;

pub(super) fn options() -> (PreprocessOptions, Options) {
    let pp = PreprocessOptions {
        fp64: true,
        extensions: vec!["cl_khr_fp64".into()],
        ..PreprocessOptions::default()
    };
    let sema = Options {
        fp64_supported: true,
        ..Options::default()
    };
    (pp, sema)
}

/// The errors and warnings of a kernel source, rendered.
pub(super) fn log(source: &str) -> String {
    let (pp, sema) = options();
    super::super::check("t.cl", source, &pp, &sema).log()
}

/// The initializer of the first variable declared in the first function.
pub(super) fn init_of(source: &str) -> Expr {
    let (pp, sema) = options();
    let checked = super::super::check("t.cl", source, &pp, &sema);
    assert!(!checked.diagnostics.has_errors(), "{}", checked.log());
    let body = checked.program.functions[0].body.as_ref().expect("a body");
    for s in body {
        if let StmtKind::Decl {
            init: Some(Init::Expr(e)),
            ..
        } = &s.kind
        {
            return e.clone();
        }
    }
    panic!("no initialized declaration");
}

pub(super) fn folded(source: &str) -> (Constant, Type) {
    let e = init_of(source);
    match e.kind {
        ExprKind::Const(c) => (c, e.ty),
        other => panic!("not folded: {other:?}"),
    }
}

pub(super) fn ints(v: &[i64], s: Scalar) -> Constant {
    Constant::Int(
        v.iter()
            .map(|&x| super::constant::truncate(x as u64, s))
            .collect(),
    )
}

#[test]
fn vector_literals_versus_casts_versus_comma() {
    // A vector literal: four components.
    let (c, t) = folded("kernel void k() { int4 v = (int4)(1, 2, 3, 4); }");
    assert_eq!(
        (c, t),
        (
            ints(&[1, 2, 3, 4], Scalar::Int),
            Type::Vector(Scalar::Int, 4)
        )
    );
    // One scalar in parentheses: every lane.
    let (c, _) = folded("kernel void k() { int4 v = (int4)(7); }");
    assert_eq!(c, ints(&[7, 7, 7, 7], Scalar::Int));
    // Parts may be vectors: (float2, float, float).
    let (c, _) =
        folded("kernel void k() { float4 v = (float4)((float2)(1.0f, 2.0f), 3.0f, 4.0f); }");
    assert_eq!(c, Constant::Float(vec![1.0, 2.0, 3.0, 4.0]));
    // A scalar cast of a parenthesized comma expression is C's comma operator.
    let (c, t) = folded("kernel void k() { int x = (int)(1, 2); }");
    assert_eq!((c, t), (ints(&[2], Scalar::Int), Type::int()));
    assert!(
        log("kernel void k() { int4 v = (int4)(1, 2, 3); }")
            .contains("error: vector literal of type 'int4' needs 4 components, 3 given")
    );
}

#[test]
fn bool_to_vector_gives_minus_one() {
    let (c, _) = folded("kernel void k() { uchar4 v = (uchar4)true; }");
    assert_eq!(c, ints(&[0xff; 4], Scalar::UChar));
    let (c, _) = folded("kernel void k() { int2 v = (int2)false; }");
    assert_eq!(c, ints(&[0, 0], Scalar::Int));
    // clang splats a bool as -1 in initialization and assignment too, and to float lanes.
    let (c, _) = folded("kernel void k() { short4 v = true; }");
    assert_eq!(c, ints(&[-1; 4], Scalar::Short));
    let (c, _) = folded("kernel void k() { float2 v = (float2)(true); }");
    assert_eq!(c, Constant::Float(vec![-1.0, -1.0]));
    // `1 == 1` is an int, and a literal's components convert as scalars: 1.
    let (c, _) = folded("kernel void k() { int4 v = (int4)(1 == 1); }");
    assert_eq!(c, ints(&[1; 4], Scalar::Int));
    let (c, _) = folded("kernel void k() { int4 v = (int4)(1, true, 0, 0); }");
    assert_eq!(c, ints(&[1, 1, 0, 0], Scalar::Int));
}

#[test]
fn folding_keeps_side_effects() {
    // A comma whose left side has an effect is not a constant, whatever its right side.
    for source in [
        "kernel void k() { int g; int x = ((g = 0), 7); }",
        "kernel void k() { int g; int x = (int)(float)(g++, 2.5f); }",
        "kernel void k() { int g; int x = (g = 1, 0) ? 1 : 2; }",
        "kernel void k() { int g; int x = 1 && (g = 1, 1); }",
    ] {
        let e = init_of(source);
        assert!(!matches!(e.kind, ExprKind::Const(_)), "{source}: {e:?}");
    }
    // Without effects, it still folds (clang folds `(1, 2)` too).
    let (c, _) = folded("kernel void k() { int x = ((1, 2), 3) + (0 ? 9 : 4); }");
    assert_eq!(c, ints(&[7], Scalar::Int));
    // An operand that is not evaluated may have effects: `1 || (g = 1)` is 1.
    let (c, _) = folded("kernel void k() { int g; int x = 1 || (g = 1, 1); }");
    assert_eq!(c, ints(&[1], Scalar::Int));
    assert!(
        log("kernel void k(global int *o) { int g; int a[(g = 1, 3)]; o[0] = a[0]; }")
            .contains("error: expression is not an integer constant expression")
    );
}

#[test]
fn vector_comparisons_give_minus_one_scalar_ones_give_one() {
    let (c, t) = folded("kernel void k() { int4 m = (int4)(1, 2, 3, 4) > (int4)(2); }");
    assert_eq!(
        (c, t),
        (
            ints(&[0, 0, -1, -1], Scalar::Int),
            Type::Vector(Scalar::Int, 4)
        )
    );
    let (c, t) = folded("kernel void k() { int x = 3 > 2; }");
    assert_eq!((c, t), (ints(&[1], Scalar::Int), Type::int()));
    // float4 comparisons give int4; double2 ones give long2.
    let e = init_of("kernel void k(float4 a) { int4 m = a < a; }");
    assert_eq!(e.ty, Type::Vector(Scalar::Int, 4));
    let e = init_of(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k(double2 a) { long2 m = a == a; }",
    );
    assert_eq!(e.ty, Type::Vector(Scalar::Long, 2));
    let (c, _) = folded("kernel void k() { short2 m = !(short2)(0, 5); }");
    assert_eq!(c, ints(&[-1, 0], Scalar::Short));
}

#[test]
fn no_implicit_conversions_between_vector_types() {
    assert!(
        log("kernel void k(int4 a) { float4 f = a; }")
            .contains("error: assigning to 'float4' from incompatible type 'int4'")
    );
    assert!(
        log("kernel void k(int4 a, uint4 b) { int4 c = a + b; }")
            .contains("no implicit conversion between vector types")
    );
    assert!(
        log("kernel void k(int4 a) { float4 f = (float4)a; }")
            .contains("invalid conversion between vector types 'int4' and 'float4'")
    );
    // A scalar widens to the vector.
    let e = init_of("kernel void k(float4 a) { float4 b = a * 2; }");
    assert_eq!(e.ty, Type::Vector(Scalar::Float, 4));
    // ... unless its rank is higher than the elements'.
    assert!(log("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k(float4 a, double d) { float4 b = a * d; }").contains("greater rank"));
    // int4 + 0U is legal and gives int4 (footnote of 6.2.6).
    assert_eq!(
        init_of("kernel void k(int4 a) { int4 b = a + 0U; }").ty,
        Type::Vector(Scalar::Int, 4)
    );
}

#[test]
fn vector_ternary_selects_on_the_most_significant_bit() {
    let e = init_of("kernel void k(int4 c, float4 a, float4 b) { float4 r = c ? a : b; }");
    assert!(matches!(e.kind, ExprKind::Select { .. }));
    assert_eq!(e.ty, Type::Vector(Scalar::Float, 4));
    assert!(
        log("kernel void k(float4 c, float4 a) { float4 r = c ? a : a; }")
            .contains("must be an integer vector")
    );
    assert!(
        log("kernel void k(short4 c, float4 a) { float4 r = c ? a : a; }")
            .contains("same number of elements and element size")
    );
}

#[test]
fn shifts_take_the_count_modulo_the_width() {
    let (c, _) = folded("kernel void k() { int x = 1 << 33; }");
    assert_eq!(c, ints(&[2], Scalar::Int));
    let (c, _) = folded("kernel void k() { uchar2 v = (uchar2)(1, 128) << (uchar2)(9, 1); }");
    assert_eq!(c, ints(&[2, 0], Scalar::UChar));
}

#[test]
fn conversions_with_saturation_and_as_type_size_rules() {
    let (c, t) = folded("kernel void k() { uchar x = convert_uchar_sat(300); }");
    assert_eq!(
        (c, t),
        (ints(&[255], Scalar::UChar), Type::Scalar(Scalar::UChar))
    );
    let (c, _) =
        folded("kernel void k() { char4 v = convert_char4_sat((int4)(-200, 200, 5, -5)); }");
    assert_eq!(c, ints(&[-128, 127, 5, -5], Scalar::Char));
    let (c, _) = folded("kernel void k() { int x = convert_int(-2.7f); }");
    assert_eq!(c, ints(&[-2], Scalar::Int));
    let (c, _) = folded("kernel void k() { uint x = as_uint(1.0f); }");
    assert_eq!(c, ints(&[0x3f80_0000], Scalar::UInt));
    // as_float4 of a float3 is fine: a 3-vector has the size of a 4-vector.
    assert!(!log("kernel void k(float3 a) { float4 b = as_float4(a); }").contains("error"));
    assert!(log("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k(int a) { double d = as_double(a); }").contains("sizes of 'double' and 'int' must match"));
    assert!(
        log("kernel void k(int a) { float f = convert_float_sat(a); }")
            .contains("saturation is only defined for conversions to integer types")
    );
    assert!(
        log("kernel void k(int4 a) { int2 b = convert_int2(a); }")
            .contains("no matching function for call to 'convert_int2(int4)'")
    );
}

#[test]
fn swizzles_as_values_and_targets() {
    let (c, t) = folded("kernel void k() { int2 v = (int4)(1, 2, 3, 4).wx; }");
    assert_eq!(
        (c, t),
        (ints(&[4, 1], Scalar::Int), Type::Vector(Scalar::Int, 2))
    );
    let (c, _) = folded("kernel void k() { int4 v = (int8)(0, 1, 2, 3, 4, 5, 6, 7).odd; }");
    assert_eq!(c, ints(&[1, 3, 5, 7], Scalar::Int));
    let (c, _) = folded("kernel void k() { int2 v = (int4)(1, 2, 3, 4).hi; }");
    assert_eq!(c, ints(&[3, 4], Scalar::Int));
    let (c, _) =
        folded("kernel void k() { int v = (int16)(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15).sF; }");
    assert_eq!(c, ints(&[15], Scalar::Int));
    assert!(
        log("kernel void k(float4 a) { a.xx = (float2)(1.0f); }").contains("duplicate components")
    );
    assert!(log("kernel void k(float2 a) { float b = a.z; }").contains("exceeds type"));
    let wide = log("kernel void k(float8 a) { float b = a.x; }");
    assert!(wide.contains("warning: vector component name 'x' on a vector of 8 elements"));
    assert!(!wide.contains("error"), "{wide}");
    assert!(
        log("kernel void k(float16 a) { float2 b = a.xs1; }")
            .contains("illegal vector component name 's'")
    );
    assert!(
        log("kernel void k(float4 a, int i) { float b = a.xy[i]; }")
            .contains("error: a swizzle can only be subscripted with a constant index")
    );
    assert!(
        log("kernel void k(float4 a) { float b = a[4]; }")
            .contains("vector subscript out of range")
    );
    let (c, _) = folded("kernel void k() { int2 v = (int4)(1, 2, 3, 4).ab; }");
    assert_eq!(c, ints(&[4, 3], Scalar::Int));
    assert!(
        log("kernel void k(float4 a) { float b = a.r; }")
            .contains("warning: vector component name 'r' is a feature from OpenCL version 3.0")
    );
    assert!(
        log("kernel void k(float4 a) { float2 b = a.rx; }")
            .contains("illegal vector component name 'x'")
    );
    assert!(
        !log("kernel void k(float4 a) { a.xz = (float2)(1.0f, 2.0f); a.s3 = 0.0f; }")
            .contains("error")
    );
}

#[test]
fn address_space_rules() {
    assert!(log("kernel void k(float *p) {}").contains("pointer arguments to kernel functions must reside in '__global', '__constant', or '__local' address space"));
    assert!(
        log("int x = 1;").contains("program scope variable must reside in constant address space")
    );
    assert!(!log("constant int x = 1; kernel void k(global int *p) { *p = x; }").contains("error"));
    assert!(
        log("void f() { local int x; }")
            .contains("non-kernel function variable cannot be declared in local address space")
    );
    assert!(
        log("kernel void k() { local int x = 1; }")
            .contains("'__local' variable cannot have an initializer")
    );
    assert!(
        log("kernel void k(global int *g, local int *l) { g = l; }")
            .contains("changes address space of pointer")
    );
    assert!(log("kernel void k(constant int *c) { *c = 1; }").contains("cannot assign"));
}

#[test]
fn opencl_c_restrictions() {
    assert!(log("kernel int k() { return 0; }").contains("kernel must have void return type"));
    assert!(
        log("int f(int x) { return f(x); } kernel void k() {}")
            .contains("recursion is not supported")
    );
    assert!(
        log("kernel void k(int n) { int a[n]; }")
            .contains("variable length arrays are not supported")
    );
    assert!(
        log("struct S { int a : 3; }; kernel void k() {}").contains("bit-fields are not supported")
    );
    assert!(log("kernel void k() { auto int x = 0; }").contains("'auto' storage class"));
    assert!(
        log("kernel void k(bool b) {}")
            .contains("'bool' cannot be used as the type of a kernel parameter")
    );
    assert!(log("kernel void k() { double d = 1.0; }").contains("requires cl_khr_fp64"));
}

#[test]
fn builtins_resolve_against_the_generated_table() {
    let e = init_of("kernel void k(float4 a) { float4 b = fmax(a, 0.5f); }");
    assert!(matches!(&e.kind, ExprKind::Builtin { id, .. } if id.name() == "fmax"));
    assert_eq!(
        init_of("kernel void k(global float *p) { size_t i = get_global_id(0); }").ty,
        Type::Scalar(Scalar::ULong)
    );
    assert_eq!(
        init_of("kernel void k(char4 a) { uchar4 b = abs(a); }").ty,
        Type::Vector(Scalar::UChar, 4)
    );
    assert_eq!(
        init_of("kernel void k(float4 a) { int4 b = isnan(a); }").ty,
        Type::Vector(Scalar::Int, 4)
    );
    assert_eq!(
        init_of("kernel void k(global int *p) { int old = atomic_add(p, 1); }").ty,
        Type::int()
    );
    // With only float overloads enabled, sqrt(2) converts the int; with fp64 both match.
    assert!(!log("kernel void k() { float x = sqrt(2); }").contains("error"));
    assert!(
        log(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k() { float x = sqrt(2); }"
        )
        .contains("call to 'sqrt(int)' is ambiguous")
    );
    assert!(
        log("kernel void k() { int x = nosuch(1); }")
            .contains("implicit declaration of function 'nosuch' is invalid in OpenCL")
    );
    assert!(
        log("kernel void k(int4 a) { int4 b = sin(a); }")
            .contains("no matching function for call to 'sin(int4)'")
    );
    assert_eq!(
        init_of("kernel void k(float4 a, uint4 m) { float4 b = shuffle(a, m); }").ty,
        Type::Vector(Scalar::Float, 4)
    );
}

#[test]
fn diagnostics_point_at_the_spot_with_a_caret() {
    assert_eq!(
        log("kernel void k(global int *p) {\n  *p = y + 1;\n}\n"),
        "t.cl:2:8: error: use of undeclared identifier 'y'\n  *p = y + 1;\n       ^\n"
    );
}

#[test]
fn every_error_of_a_program_is_reported() {
    let text =
        log("kernel void k(global int *p) {\n  int a = u;\n  float4 f = (int4)(1);\n  p = q;\n}\n");
    assert_eq!(text.matches("error:").count(), 3, "{text}");
}

#[test]
fn literals_have_their_c99_types() {
    assert_eq!(
        init_of("kernel void k() { long x = 2147483648; }")
            .kind
            .clone()
            .ty_of(),
        Some(Scalar::Long)
    );
    let (c, _) = folded("kernel void k() { float f = 0x1.8p1f; }");
    assert_eq!(c, Constant::Float(vec![3.0]));
    let (c, _) = folded("kernel void k() { int c = '\\n'; }");
    assert_eq!(c, ints(&[10], Scalar::Int));
    let (c, _) = folded("kernel void k() { uint x = -1; }");
    assert_eq!(c, ints(&[0xffff_ffff], Scalar::UInt));
}

trait TyOf {
    fn ty_of(self) -> Option<Scalar>;
}

impl TyOf for ExprKind {
    /// The type of a folded integer initializer before its conversion to the variable.
    fn ty_of(self) -> Option<Scalar> {
        match self {
            ExprKind::Const(_) => Some(Scalar::Long),
            ExprKind::Convert { operand, .. } => operand.ty.scalar(),
            _ => None,
        }
    }
}

#[test]
fn enumerators_may_use_earlier_enumerators_of_their_enum() {
    // C99 6.2.1p7: an enumeration constant's scope begins just after its enumerator.
    let source = "enum e { A, B = 4, C = B * 2, D };
                  kernel void k(global int *p) { int x = C + D; p[0] = x; }";
    assert_eq!(log(source), "");
    let (c, _) = folded(source);
    assert_eq!(c, ints(&[17], Scalar::Int));
    // A later enumerator is not yet in scope.
    assert!(log("enum f { X = Y, Y };").contains("use of undeclared identifier 'Y'"));
}

#[test]
fn infinity_and_nan_macros_are_float_constants() {
    let (c, t) = folded("kernel void k() { float x = INFINITY; }");
    assert_eq!(
        (c, t),
        (
            Constant::Float(vec![f64::INFINITY]),
            Type::Scalar(Scalar::Float)
        )
    );
    let (c, _) = folded("kernel void k() { float x = -HUGE_VALF; }");
    assert_eq!(c, Constant::Float(vec![f64::NEG_INFINITY]));
    let e = init_of("kernel void k() { float x = NAN; }");
    assert!(matches!(&e.kind, ExprKind::Const(Constant::Float(v)) if v[0].is_nan()));
    assert_eq!(e.ty, Type::Scalar(Scalar::Float));
    // Usable in program-scope constant initializers and in double code.
    assert_eq!(
        log("__constant float lim[2] = { -INFINITY, INFINITY };
             #pragma OPENCL EXTENSION cl_khr_fp64 : enable
             kernel void k(global double *p) { p[0] = HUGE_VAL; p[1] = isnan(NAN); }"),
        ""
    );
}

#[test]
fn an_async_copy_event_may_be_the_constant_zero() {
    // 6.12.10: "The event argument can also be used to associate the
    // async_work_group_copy with a previous async copy ...; otherwise event should be
    // zero." The integer constant 0 converts to event_t; other integers do not.
    let copy = |event: &str| {
        log(&format!(
            "kernel void k(global const float *g, local float *l, int n) {{
               event_t e = async_work_group_copy(l, g, 64, {event});
               wait_group_events(1, &e);
             }}"
        ))
    };
    assert_eq!(copy("0"), "");
    assert!(copy("1").contains("no matching function"), "{}", copy("1"));
    assert!(copy("n").contains("no matching function"), "{}", copy("n"));
}

/// The arguments of the builtin call that initializes the first variable.
fn builtin_args(source: &str) -> (String, Vec<Expr>, Type) {
    let e = init_of(source);
    match e.kind {
        ExprKind::Builtin { id, args } => (id.name().to_string(), args, e.ty),
        other => panic!("not a builtin call: {other:?}"),
    }
}

#[test]
fn a_scalar_argument_is_repeated_into_a_vector_parameter() {
    // rotate(uint4, uint) calls rotate(uint4, uint4): the count becomes a splat.
    let (name, args, ty) =
        builtin_args("kernel void k(uint4 v, uint n) { uint4 r = rotate(v, n); }");
    assert_eq!(name, "rotate");
    assert_eq!(ty, Type::Vector(Scalar::UInt, 4));
    assert_eq!(args[1].ty, Type::Vector(Scalar::UInt, 4));
    assert!(
        matches!(&args[1].kind, ExprKind::Convert { kind: ConvertKind::Splat, operand }
            if operand.ty == Type::Scalar(Scalar::UInt)),
        "{:?}",
        args[1].kind
    );
    // An int constant is converted to the element type, then repeated (and folded).
    let (_, args, ty) = builtin_args("kernel void k(uint4 v) { uint4 r = rotate(v, 16); }");
    assert_eq!(ty, Type::Vector(Scalar::UInt, 4));
    assert!(
        matches!(&args[1].kind, ExprKind::Const(c) if *c == ints(&[16; 4], Scalar::UInt)),
        "{:?}",
        args[1].kind
    );
    assert_eq!(args[1].ty, Type::Vector(Scalar::UInt, 4));
    // The scalar may come first: mix(float, float4, float4).
    let (_, args, ty) =
        builtin_args("kernel void k(float a, float4 b) { float4 r = mix(a, b, b); }");
    assert_eq!(ty, Type::Vector(Scalar::Float, 4));
    assert_eq!(args[0].ty, Type::Vector(Scalar::Float, 4));
}

#[test]
fn a_splat_ranks_below_exact_matches_and_conversions() {
    // max(float4, float) exists (6.12.4): it wins over splatting into max(float4, float4),
    // even through the int-to-float conversion of the literal.
    let (_, args, _) = builtin_args("kernel void k(float4 v) { float4 r = max(v, 1); }");
    assert_eq!(args[1].ty, Type::Scalar(Scalar::Float));
    // Scalar arguments keep the scalar overload.
    let (_, args, ty) = builtin_args("kernel void k(uint a) { uint r = rotate(a, 3u); }");
    assert_eq!(ty, Type::Scalar(Scalar::UInt));
    assert_eq!(args[1].ty, Type::Scalar(Scalar::UInt));
}

#[test]
fn ambiguous_and_unmatched_splats_are_errors() {
    // cross has only float3 and float4 overloads: two scalars splat into both equally.
    assert_eq!(
        log("kernel void k() { float4 c = cross(1.0f, 2.0f); }"),
        "t.cl:1:30: error: call to 'cross(float, float)' is ambiguous: candidates are \
         cross(float4, float4), cross(float3, float3)\n\
         kernel void k() { float4 c = cross(1.0f, 2.0f); }\n                             \
         ^~~~~~~~~~~~~~~~~\n"
    );
    // A splat never changes a vector's width: uint2 cannot become uint4.
    assert!(
        log("kernel void k(uint4 v, uint2 n) { uint4 r = rotate(v, n); }")
            .contains("no matching function for call to 'rotate(uint4, uint2)'")
    );
    // Nor does it make a scalar of another kind of value: a pointer is not splatted.
    assert!(
        log("kernel void k(uint4 v, global uint *p) { uint4 r = rotate(v, p); }")
            .contains("no matching function for call to 'rotate(uint4, __global uint *)'")
    );
}
