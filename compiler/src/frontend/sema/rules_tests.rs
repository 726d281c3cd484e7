//! Golden tests: one rule of OpenCL C 1.2 each, with a case that must be accepted (its
//! exact folded value and type, or an empty log) and one that must be rejected (its exact
//! diagnostic, with line and column where they matter). Each quotes its section of the
//! specification.

use super::super::tir::{Constant, ConvertKind, ExprKind, Rounding};
use super::super::types::{Scalar, Type};
use super::Options;
use super::tests::{folded, init_of, ints, log, options};

fn int4(v: [i64; 4]) -> (Constant, Type) {
    (ints(&v, Scalar::Int), Type::Vector(Scalar::Int, 4))
}

/// The log of a source compiled with other sema options.
fn log_with(source: &str, sema: &Options) -> String {
    let (pp, _) = options();
    super::super::check("t.cl", source, &pp, sema).log()
}

/// §6.1.6: "A vector literal is written as a parenthesized vector type followed by a
/// parenthesized comma delimited list of parameters ... the total number of components
/// ... must be equal to the number of components of the vector type; or there is a single
/// scalar ... whose value is replicated to all components."
#[test]
fn vector_literal_components() {
    assert_eq!(
        folded("kernel void k() { int4 v = (int4)(1, 2, 3, 4); }"),
        int4([1, 2, 3, 4])
    );
    assert_eq!(
        folded("kernel void k() { int4 v = (int4)(1); }"),
        int4([1, 1, 1, 1])
    );
    assert_eq!(
        folded("kernel void k() { int4 v = (int4)((int2)(1, 2), 3, 4); }"),
        int4([1, 2, 3, 4])
    );
    // A part may be a swizzle of a run-time vector.
    assert_eq!(
        log("kernel void k(int4 a) { int4 v = (int4)(a.xy, 3, 4); }"),
        ""
    );
    let e = init_of("kernel void k(int4 a) { int4 v = (int4)(a.xy, 3, 4); }");
    assert!(matches!(e.kind, ExprKind::VectorLiteral(ref p) if p.len() == 3));
    assert_eq!(e.ty, Type::Vector(Scalar::Int, 4));
}

#[test]
fn vector_literal_with_the_wrong_component_count_is_an_error() {
    assert!(
        log("kernel void k() { int4 v = (int4)(1, 2, 3, 4, 5); }").contains(
            "t.cl:1:28: error: vector literal of type 'int4' needs 4 components, 5 given"
        )
    );
    assert!(
        log("kernel void k() { int4 v = (int4)((int2)(1, 2), (int2)(3, 4), 5); }")
            .contains("error: vector literal of type 'int4' needs 4 components, 5 given")
    );
}

/// §6.2.2: "Scalar to vector conversions may be performed by casting the scalar to the
/// desired vector data type. ... the scalar ... is then replicated to all the components".
/// "Explicit casts between vector types are not legal."
#[test]
fn a_cast_of_a_scalar_splats_a_cast_of_a_vector_is_an_error() {
    let e = init_of("kernel void k(int x) { int4 v = (int4)x; }");
    assert!(matches!(
        e.kind,
        ExprKind::Convert {
            kind: ConvertKind::Splat,
            ..
        }
    ));
    assert_eq!(e.ty, Type::Vector(Scalar::Int, 4));
    assert_eq!(
        folded("kernel void k() { float4 v = (float4)2; }"),
        (
            Constant::Float(vec![2.0; 4]),
            Type::Vector(Scalar::Float, 4)
        )
    );
    assert!(log("kernel void k(float4 f) { int4 v = (int4)f; }").contains(
        "t.cl:1:36: error: invalid conversion between vector types 'float4' and 'int4' (use convert_int4 or as_int4)"
    ));
}

/// §6.2.6 (usual arithmetic conversions): "If one operand is a scalar and the other is a
/// vector, the scalar is converted to the element type used by the vector operand" and
/// is widened; §6.2.1: "Implicit conversions between built-in vector data types are
/// disallowed."
#[test]
fn scalars_widen_to_vectors_vectors_do_not_convert() {
    assert_eq!(
        folded("kernel void k() { int4 v = (int4)(1, 2, 3, 4) + 1; }"),
        int4([2, 3, 4, 5])
    );
    assert_eq!(
        folded("kernel void k() { float2 v = 1 + (float2)(0.5f, 1.5f); }"),
        (
            Constant::Float(vec![1.5, 2.5]),
            Type::Vector(Scalar::Float, 2)
        )
    );
    assert!(log("kernel void k(int4 a, uint4 b) { int4 c = a + b; }").contains(
        "t.cl:1:45: error: invalid operands: vector types 'int4' and 'uint4' differ (no implicit conversion between vector types)"
    ));
    assert!(log("kernel void k(int4 a, float4 b) { float4 c = a + b; }").contains(
        "t.cl:1:48: error: invalid operands: vector types 'int4' and 'float4' differ (no implicit conversion between vector types)"
    ));
}

/// §6.3.d-e: relational and equality operators on vectors give "0 if the specified
/// relation is false and -1 (i.e. all bits set) if the specified relation is true" in "a
/// signed integer type ... of the same size as the operands' element type"; on scalars
/// they give the int 1 or 0. §6.3.f: `!` on a vector likewise gives -1/0.
#[test]
fn relational_operators_on_vectors_give_minus_one() {
    assert_eq!(
        folded("kernel void k() { int4 m = (float4)(1.0f, 2.0f, 3.0f, 4.0f) < (float4)(2.0f); }"),
        int4([-1, 0, 0, 0])
    );
    assert_eq!(
        folded(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k() { long2 m = (double2)(1.0, 2.0) == (double2)(1.0); }"
        ),
        (ints(&[-1, 0], Scalar::Long), Type::Vector(Scalar::Long, 2))
    );
    assert_eq!(
        folded("kernel void k() { int x = 2 > 1; }"),
        (ints(&[1], Scalar::Int), Type::int())
    );
    assert_eq!(
        folded("kernel void k() { int x = 2 < 1; }"),
        (ints(&[0], Scalar::Int), Type::int())
    );
    assert_eq!(
        folded("kernel void k() { int4 m = !(int4)(0, 1, 0, 7); }"),
        int4([-1, 0, -1, 0])
    );
}

#[test]
fn a_vector_comparison_is_not_a_float_vector() {
    assert!(
        log("kernel void k(float4 a) { float4 m = a < a; }")
            .contains("t.cl:1:38: error: assigning to 'float4' from incompatible type 'int4'")
    );
}

/// §6.3.i: "The ternary selection operator (?:) ... If the result is a vector value, then
/// this is equivalent to calling select(exp3, exp2, exp1)"; §6.12.6 select: "For each
/// component of a vector type, result[i] = if MSB of c[i] is set ? b[i] : a[i]"; "igentype
/// ... must have the same number of elements and bits as gentype".
#[test]
fn vector_ternary_selects_per_lane() {
    let source = "kernel void k(int4 c, float4 a, float4 b) { float4 r = c ? a : b; }";
    assert_eq!(log(source), "");
    let e = init_of(source);
    assert!(matches!(e.kind, ExprKind::Select { .. }));
    assert_eq!(e.ty, Type::Vector(Scalar::Float, 4));
    // A long2 selects double2 lanes.
    assert_eq!(
        log(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k(long2 c, double2 a) { double2 r = c ? a : a; }"
        ),
        ""
    );
}

/// §6.3.i with a vector condition and two scalar operands: they are converted to each
/// other without integer promotion (clang's `OpenCLArithmeticConversions`) and widened to
/// the condition's length, so `char2 ? char : char` is a `char2` (the Khronos CTS's
/// integer_ops `vector_scalar` builds exactly this).
#[test]
fn vector_condition_with_scalar_operands_keeps_their_width() {
    let e = init_of("kernel void k(char2 c, char a, char b) { char2 r = c ? a : b; }");
    assert!(matches!(e.kind, ExprKind::Select { .. }));
    assert_eq!(e.ty, Type::Vector(Scalar::Char, 2));
    let e = init_of("kernel void k(short4 c, short a, ushort b) { ushort4 r = c ? a : b; }");
    assert_eq!(e.ty, Type::Vector(Scalar::UShort, 4));
    let e = init_of("kernel void k(int3 c, uchar a, float b) { float3 r = c ? a : b; }");
    assert_eq!(e.ty, Type::Vector(Scalar::Float, 3));
    assert!(log("kernel void k(long2 c, char a, char b) { char2 r = c ? a : b; }").contains(
        "error: vector condition type 'long2' and result type 'char2' do not have the same number of elements and element size"
    ));
}

#[test]
fn vector_ternary_needs_a_matching_integer_vector_condition() {
    assert!(
        log("kernel void k(float4 c, int4 a) { int4 r = c ? a : a; }")
            .contains("t.cl:1:44: error: vector condition type 'float4' must be an integer vector")
    );
    assert!(log("kernel void k(int2 c, int4 a) { int4 r = c ? a : a; }").contains(
        "t.cl:1:42: error: vector condition type 'int2' and result type 'int4' do not have the same number of elements and element size"
    ));
}

/// §6.3.j: "The result of E1 << E2 is E1 left-shifted by log2(N) least significant bits in
/// E2 viewed as an unsigned integer value, where N is the number of bits used to represent
/// the data type of E1" — after the integer promotions for scalars (6.3.j applies the
/// usual C99 rules), with no promotion of vector elements.
#[test]
fn shift_counts_are_taken_modulo_the_width() {
    assert_eq!(
        folded("kernel void k() { int x = 1 << 33; }"),
        (ints(&[2], Scalar::Int), Type::int())
    );
    assert_eq!(
        folded("kernel void k() { int x = 8 >> 33; }"),
        (ints(&[4], Scalar::Int), Type::int())
    );
    assert_eq!(
        folded("kernel void k() { long x = 1L << 65; }"),
        (ints(&[2], Scalar::Long), Type::Scalar(Scalar::Long))
    );
    // A uchar scalar is promoted to int: the count is taken modulo 32, not 8.
    assert_eq!(
        folded("kernel void k() { int x = (uchar)1 << 9; }"),
        (ints(&[512], Scalar::Int), Type::int())
    );
    // uchar2 lanes are not promoted: 9 mod 8 = 1.
    assert_eq!(
        folded("kernel void k() { uchar2 v = (uchar2)(1, 128) << (uchar2)(9); }"),
        (ints(&[2, 0], Scalar::UChar), Type::Vector(Scalar::UChar, 2))
    );
}

#[test]
fn a_shift_of_a_float_is_an_error() {
    let text = log("kernel void k(float f) { float g = f << 1; }");
    assert!(text.contains("t.cl:1:"), "{text}");
    assert!(text.contains("error: invalid operands"), "{text}");
}

/// §6.2.4.2: "It is an error to use as_type() or as_typen() operator to reinterpret data
/// to a type of a different number of bytes." 3-component vectors have the size of
/// 4-component ones (§6.1.5), so as_float4(int3) and as_float3(int4) are legal.
#[test]
fn as_type_reinterprets_equal_sizes() {
    assert_eq!(
        folded("kernel void k() { int x = as_int(1.0f); }"),
        (ints(&[0x3f80_0000], Scalar::Int), Type::int())
    );
    assert_eq!(
        folded("kernel void k() { int x = as_int((short2)(1, 2)); }"),
        (ints(&[0x0002_0001], Scalar::Int), Type::int())
    );
    assert_eq!(log("kernel void k(short2 a) { int i = as_int(a); }"), "");
    assert_eq!(
        log("kernel void k(int3 a) { float4 f = as_float4(a); }"),
        ""
    );
    assert_eq!(
        log("kernel void k(int4 a) { float3 f = as_float3(a); }"),
        ""
    );
}

#[test]
fn as_type_of_a_different_size_is_an_error() {
    assert!(
        log("kernel void k(char c) { int i = as_int(c); }").contains(
            "t.cl:1:33: error: invalid reinterpretation: sizes of 'int' and 'char' must match"
        )
    );
    assert!(
        log("kernel void k(int2 a) { float3 f = as_float3(a); }")
            .contains("error: invalid reinterpretation: sizes of 'float3' and 'int2' must match")
    );
}

/// §6.2.3: "convert_destType<_sat><_roundingMode>(sourceType)"; §6.2.3.3: "With
/// saturation, out-of-range values are clamped to the nearest representable value";
/// §6.2.3.2 rounding modes _rte, _rtz, _rtp, _rtn; "the number of elements in the source
/// and destination vectors must match".
#[test]
fn explicit_conversions_saturate_and_round() {
    assert_eq!(
        folded("kernel void k() { uchar x = convert_uchar_sat(300); }"),
        (ints(&[255], Scalar::UChar), Type::Scalar(Scalar::UChar))
    );
    assert_eq!(
        folded("kernel void k() { char x = convert_char_sat(-200); }"),
        (ints(&[-128], Scalar::Char), Type::Scalar(Scalar::Char))
    );
    // The rounding modes are not folded: the conversion keeps its mode for codegen.
    let source = "kernel void k() { int x = convert_int_rtn(-1.5f); }";
    assert_eq!(log(source), "");
    let e = init_of(source);
    assert!(matches!(
        e.kind,
        ExprKind::Convert {
            kind: ConvertKind::Numeric {
                saturate: false,
                rounding: Rounding::Rtn
            },
            ..
        }
    ));
    assert_eq!(e.ty, Type::int());
    let e = init_of("kernel void k(float3 a) { int3 x = convert_int3_sat_rtp(a); }");
    assert!(matches!(
        e.kind,
        ExprKind::Convert {
            kind: ConvertKind::Numeric {
                saturate: true,
                rounding: Rounding::Rtp
            },
            ..
        }
    ));
    assert_eq!(e.ty, Type::Vector(Scalar::Int, 3));
}

#[test]
fn explicit_conversion_between_lane_counts_is_an_error() {
    assert!(
        log("kernel void k(float3 a) { int4 x = convert_int4(a); }")
            .contains("t.cl:1:36: error: no matching function for call to 'convert_int4(float3)'")
    );
}

/// §6.1.7: "The component names .xyzw ... .s0-.s9, .sa-.sf (or .sA-.sF)"; ".lo, .hi,
/// .even, .odd"; "For a 3-component vector, .odd, .even, .hi and .lo ... act as if it
/// were a 4-component vector" (the w lane undefined).
#[test]
fn swizzles_select_lanes() {
    assert_eq!(
        folded("kernel void k() { int4 x = (int4)(1, 2, 3, 4).wzyx; }"),
        int4([4, 3, 2, 1])
    );
    let v16 = "(int16)(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)";
    for name in ["sA", "sa"] {
        assert_eq!(
            folded(&format!("kernel void k() {{ int x = {v16}.{name}; }}")),
            (ints(&[10], Scalar::Int), Type::int())
        );
    }
    assert_eq!(
        folded("kernel void k() { int2 x = (int3)(1, 2, 3).lo; }"),
        (ints(&[1, 2], Scalar::Int), Type::Vector(Scalar::Int, 2))
    );
    assert_eq!(
        folded("kernel void k() { int2 x = (int3)(1, 2, 3).even; }"),
        (ints(&[1, 3], Scalar::Int), Type::Vector(Scalar::Int, 2))
    );
    // .hi and .odd of a 3-vector: their second lane is the undefined w.
    for (name, first) in [("hi", 3), ("odd", 2)] {
        let (c, t) = folded(&format!(
            "kernel void k() {{ int2 x = (int3)(1, 2, 3).{name}; }}"
        ));
        assert_eq!(t, Type::Vector(Scalar::Int, 2));
        let Constant::Int(lanes) = c else {
            panic!("{c:?}")
        };
        assert_eq!(lanes[0], first);
    }
    assert_eq!(
        log("kernel void k(float4 a) { a.xz = (float2)(1.0f, 2.0f); a.s3 = 0.0f; }"),
        ""
    );
}

/// §6.1.7: "It is an error to use ... components with repeated components as an lvalue";
/// "The use of vector component names .xyzw with .s# notation is not allowed"; "Accessing
/// components beyond those declared for the vector type is an error".
#[test]
fn swizzle_errors() {
    assert!(
        log("kernel void k(float4 a) { a.xx = (float2)(1.0f); }")
            .contains("t.cl:1:32: error: vector is not assignable (contains duplicate components)")
    );
    assert!(
        log("kernel void k(float4 a) { float2 b = a.xs1; }")
            .contains("t.cl:1:40: error: illegal vector component name 's'")
    );
    assert!(
        log("kernel void k(float4 a) { float2 b = a.s0y; }")
            .contains("t.cl:1:40: error: illegal vector component name 'y'")
    );
    assert!(log("kernel void k(float2 a) { float b = a.z; }").contains(
        "t.cl:1:39: error: vector component access exceeds type: lane 2 of a vector of 2"
    ));
}

/// §6.1.1.1: "The half data type can only be used to declare a pointer to a buffer that
/// contains half values"; loads go through vload_half, which returns float (§6.12.7).
#[test]
fn half_only_through_pointers() {
    assert_eq!(log("kernel void k(global half *p) { }"), "");
    let source = "kernel void k(global half *p) { float f = vload_half(0, p); }";
    assert_eq!(log(source), "");
    assert_eq!(init_of(source).ty, Type::Scalar(Scalar::Float));
    assert!(
        log("kernel void k() { half h; }")
            .contains("t.cl:1:24: error: declaring variable of type 'half' is not allowed")
    );
    assert!(
        log("kernel void k(half h) { }")
            .contains("t.cl:1:15: error: 'half' cannot be used as the type of a kernel parameter")
    );
}

/// §6.5: "pointer arguments to kernel functions ... must be declared with the __global,
/// __constant or __local qualifier"; "a pointer declared with the __global ... qualifier
/// can only be assigned to a pointer declared with the __global qualifier" (likewise
/// for the others).
#[test]
fn kernel_pointer_arguments_and_pointer_assignment() {
    assert_eq!(
        log(
            "kernel void k(global int *g, local int *l, constant int *c) { local int *m = l; global int *h = g; *g = *c; }"
        ),
        ""
    );
    assert!(log("kernel void k(private int *p) { }").contains("t.cl:1:15: error: pointer arguments to kernel functions must reside in '__global', '__constant', or '__local' address space"));
    assert!(
        log("kernel void k(global int *g, local int *l) { l = g; }").contains(
            "t.cl:1:46: error: assigning '__global int *' to '__local int *' changes address space of pointer"
        )
    );
}

/// §6.5: "Variables in the program scope must be declared in the __constant address
/// space"; §6.5.2: "Variables allocated in the __local address space inside a kernel
/// function ... cannot be initialized"; they are declared "only in kernel functions";
/// §6.5.3: "writes to variables in the __constant address space ... are a compile-time
/// error".
#[test]
fn program_scope_local_and_constant_variables() {
    assert_eq!(
        log("constant int x = 1; kernel void k(global int *p) { local int y; y = x; *p = y; }"),
        ""
    );
    assert!(
        log("int x = 1;").contains(
            "t.cl:1:5: error: program scope variable must reside in constant address space"
        )
    );
    assert!(log("global int x;").contains(
        "t.cl:1:12: error: program scope variable must reside in constant address space"
    ));
    assert!(log("void f() { local int x; } kernel void k() { f(); }").contains(
        "t.cl:1:22: error: non-kernel function variable cannot be declared in local address space"
    ));
    assert!(
        log("kernel void k() { local int x = 1; }")
            .contains("t.cl:1:33: error: '__local' variable cannot have an initializer")
    );
    assert!(log("kernel void k(constant int *c) { *c = 1; }").contains(
        "t.cl:1:37: error: cannot assign to a variable that is const or in the __constant address space"
    ));
}

/// §6.9: "e. Recursion is not supported"; "d. Variable length arrays ... are not
/// supported"; "c. Bit-field struct members are currently not supported"; "f. ... The
/// auto and register storage-class specifiers are not supported"; §6.7.1: "A kernel
/// function ... must have a return type void".
#[test]
fn language_restrictions() {
    assert_eq!(
        log(
            "int g(int x) { return x + 1; } int f(int x) { return g(x); } kernel void k(global int *p) { int a[4] = {0}; *p = f(a[0]); }"
        ),
        ""
    );
    assert!(
        log("int f(int x) { return x ? f(x - 1) : 0; } kernel void k() {}")
            .contains("t.cl:1:5: error: recursion is not supported in OpenCL C: 'f' calls itself")
    );
    assert!(log("int g(int x); int f(int x) { return g(x); } int g(int x) { return f(x); } kernel void k() {}")
        .contains("error: recursion is not supported in OpenCL C"));
    assert!(
        log("kernel void k(int n) { int a[n]; }")
            .contains("t.cl:1:30: error: variable length arrays are not supported in OpenCL C")
    );
    assert!(
        log("struct S { int a : 3; }; kernel void k() {}")
            .contains("t.cl:1:16: error: bit-fields are not supported in OpenCL C")
    );
    assert!(log("kernel void k() { auto int x = 0; }").contains(
        "t.cl:1:19: error: OpenCL C does not support the 'auto' storage class specifier"
    ));
    assert!(log("kernel void k() { register int x = 0; }").contains(
        "t.cl:1:19: error: OpenCL C does not support the 'register' storage class specifier"
    ));
    assert!(
        log("kernel int k() { return 0; }")
            .contains("t.cl:1:12: error: kernel must have void return type")
    );
}

/// §6.9.k: "Arguments to kernel functions in a program cannot be declared with the
/// built-in scalar types bool, half, size_t, ptrdiff_t, intptr_t, and uintptr_t".
#[test]
fn kernel_argument_scalar_types() {
    assert_eq!(
        log("kernel void k(int a, ulong b, float4 c, global size_t *p) { *p = a + b; }"),
        ""
    );
    for name in ["bool", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t"] {
        assert!(
            log(&format!("kernel void k({name} n) {{}}")).contains(&format!(
                "t.cl:1:15: error: '{name}' cannot be used as the type of a kernel parameter"
            )),
            "{name}"
        );
    }
    // Non-kernel functions may take them.
    assert_eq!(
        log(
            "int f(size_t n, bool b) { return b ? (int)n : 0; } kernel void k(global int *p) { *p = f(1, true); }"
        ),
        ""
    );
}

/// §6.9.b: "Image types ... can only be used as the types of a function argument ... The
/// image types cannot be used to declare a variable".
#[test]
fn image_types_only_as_parameters() {
    assert_eq!(log("kernel void k(read_only image2d_t i) { }"), "");
    assert!(
        log("kernel void k(read_only image2d_t i) { image2d_t j = i; }").contains(
            "t.cl:1:50: error: type 'image2d_t' can only be used as a function parameter in OpenCL"
        )
    );
}

/// §6.9.b: "The image types cannot be used to declare ... a structure or union field, an
/// array of images, a pointer to an image"; §6.12.14.1 says the same of `sampler_t`.
#[test]
fn image_types_in_fields_and_pointers_are_errors() {
    let logs: Vec<String> = [
        "struct S { image2d_t i; }; kernel void k() {}",
        "kernel void k(global image2d_t *i) { }",
        "kernel void k(image3d_t i[2]) { }",
        "typedef struct { sampler_t s; } T; kernel void k() {}",
        "void f(sampler_t *s) { } kernel void k() {}",
    ]
    .iter()
    .map(|s| log(s))
    .collect();
    assert_eq!(
        logs,
        [
            "t.cl:1:22: error: the 'image2d_t' type cannot be used to declare a structure or \
             union field\nstruct S { image2d_t i; }; kernel void k() {}\n\
             \x20                    ^\n",
            "t.cl:1:32: error: pointer to type 'image2d_t' is invalid in OpenCL\n\
             kernel void k(global image2d_t *i) { }\n\
             \x20                              ^~\n",
            "t.cl:1:25: error: array of 'image3d_t' type is invalid in OpenCL\n\
             kernel void k(image3d_t i[2]) { }\n\
             \x20                       ^~~~\n",
            "t.cl:1:28: error: the 'sampler_t' type cannot be used to declare a structure or \
             union field\ntypedef struct { sampler_t s; } T; kernel void k() {}\n\
             \x20                          ^\n",
            "t.cl:1:18: error: pointer to type 'sampler_t' is invalid in OpenCL\n\
             void f(sampler_t *s) { } kernel void k() {}\n\
             \x20                ^~\n",
        ]
    );
}

/// §6.9.b: "An image function argument cannot be modified."
#[test]
fn an_image_argument_cannot_be_modified() {
    assert_eq!(
        log("kernel void k(read_only image2d_t i, read_only image2d_t j) { i = j; }"),
        "t.cl:1:65: error: image argument of type 'image2d_t' cannot be modified\n\
         kernel void k(read_only image2d_t i, read_only image2d_t j) { i = j; }\n\
         \x20                                                               ^\n"
    );
}

/// §6.1.1 / C99 6.4.4.2: "An unsuffixed floating constant has type double"; with
/// cl_khr_fp64 enabled it stays double, `f` makes it float; hexadecimal floating
/// constants are supported; §5.6.4.2 "-cl-single-precision-constant: Treat double
/// precision floating-point constant as single precision constant."
#[test]
fn floating_literal_types() {
    assert_eq!(
        folded(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k() { double d = 1.0; }"
        ),
        (Constant::Float(vec![1.0]), Type::Scalar(Scalar::Double))
    );
    assert_eq!(
        folded(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k() { size_t s = sizeof(1.0); }"
        ),
        (ints(&[8], Scalar::ULong), Type::Scalar(Scalar::ULong))
    );
    assert_eq!(
        folded(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k() { size_t s = sizeof(1.0f); }"
        ),
        (ints(&[4], Scalar::ULong), Type::Scalar(Scalar::ULong))
    );
    assert_eq!(
        folded("kernel void k() { float f = 0x1p-3f; }"),
        (Constant::Float(vec![0.125]), Type::Scalar(Scalar::Float))
    );
    let single = Options {
        fp64_supported: true,
        single_precision_constant: true,
        ..Options::default()
    };
    let source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k(global float *p) { *p = sizeof(1.0); }";
    assert_eq!(log_with(source, &single), "");
    let (pp, _) = options();
    let checked = super::super::check(
        "t.cl",
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nkernel void k() { size_t s = sizeof(1.0); }",
        &pp,
        &single,
    );
    let body = checked.program.functions[0].body.as_ref().expect("a body");
    let found = body.iter().any(|s| {
        matches!(&s.kind, super::super::tir::StmtKind::Decl { init: Some(super::super::tir::Init::Expr(e)), .. }
            if matches!(&e.kind, ExprKind::Const(c) if *c == ints(&[4], Scalar::ULong)))
    });
    assert!(
        found,
        "sizeof(1.0) with -cl-single-precision-constant must be 4"
    );
    // Without cl_khr_fp64 enabled, a double constant is a warning and becomes float.
    assert!(log("kernel void k() { float f = 1.0; }").contains(
        "t.cl:1:29: warning: double precision constant requires cl_khr_fp64, casting to single precision"
    ));
}

/// C99 6.4.4.1 (OpenCL C §6.1 follows C99): the type of an unsuffixed decimal constant is
/// the first of int, long that can represent it; a hexadecimal one may also be unsigned
/// int; C99 6.4.4.4: "An integer character constant has type int."
#[test]
fn integer_literal_types() {
    for (literal, size) in [
        ("2147483647", 4),
        ("2147483648", 8),
        ("0x80000000", 4),
        ("0x100000000", 8),
        ("'a'", 4),
    ] {
        assert_eq!(
            folded(&format!(
                "kernel void k() {{ size_t s = sizeof({literal}); }}"
            )),
            (ints(&[size], Scalar::ULong), Type::Scalar(Scalar::ULong)),
            "{literal}"
        );
    }
    assert_eq!(
        folded("kernel void k() { int c = 'a'; }"),
        (ints(&[97], Scalar::Int), Type::int())
    );
    // 0x80000000 is unsigned int: negating it stays positive.
    assert_eq!(
        folded("kernel void k() { long x = -0x80000000; }"),
        (
            ints(&[0x8000_0000], Scalar::Long),
            Type::Scalar(Scalar::Long)
        )
    );
}

#[test]
fn integer_literal_too_large_is_an_error() {
    let text = log("kernel void k() { ulong x = 18446744073709551616; }");
    assert!(
        text.contains(
            "t.cl:1:29: error: integer constant '18446744073709551616' is too large for any type"
        ),
        "{text}"
    );
}
