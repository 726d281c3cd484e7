use super::*;

fn has(name: &str, ret: &str, params: &[&str]) -> bool {
    overloads(name).iter().any(|s| {
        s.ret.to_string() == ret
            && s.params.iter().map(ToString::to_string).collect::<Vec<_>>() == params
    })
}

#[test]
fn the_table_expands_without_errors() {
    let total: usize = names().map(|n| overloads(n).len()).sum();
    assert!(names().count() > 200, "{} names", names().count());
    assert!(total > 4_000, "{total} overloads");
}

#[test]
fn math_overloads_cover_every_width_and_the_scalar_forms() {
    assert_eq!(overloads("sin").len(), 18);
    assert!(has("fmax", "float4", &["float4", "float4"]));
    assert!(has("fmax", "float4", &["float4", "float"]));
    assert!(!has("fmax", "float", &["float", "double"]));
    assert!(has("ldexp", "double3", &["double3", "int"]));
    assert!(has("ldexp", "float8", &["float8", "int8"]));
    assert!(has("ilogb", "int16", &["float16"]));
    assert!(has("nan", "float4", &["uint4"]));
    assert!(has("nan", "double", &["ulong"]));
    assert!(has("frexp", "float2", &["float2", "__local int2 *"]));
    assert!(has("sincos", "float", &["float", "__private float *"]));
    assert!(!has("sincos", "float", &["float", "__constant float *"]));
    assert_eq!(overloads("native_sin").len(), 6);
}

#[test]
fn integer_overloads() {
    assert!(has("abs", "uchar4", &["char4"]));
    assert!(has("abs", "ulong", &["ulong"]));
    assert!(has("upsample", "short2", &["char2", "uchar2"]));
    assert!(has("upsample", "ulong", &["uint", "uint"]));
    assert!(
        !overloads("upsample")
            .iter()
            .any(|s| s.ret.element() == Some(Scalar::Long)
                && s.params[0].element() == Some(Scalar::Long))
    );
    assert!(has("mad24", "uint4", &["uint4", "uint4", "uint4"]));
    assert!(
        !overloads("mad24")
            .iter()
            .any(|s| s.ret.element() == Some(Scalar::Short))
    );
    assert!(has("clamp", "int4", &["int4", "int", "int"]));
    assert!(has("max", "float3", &["float3", "float"]));
}

#[test]
fn relational_results_are_int_for_scalars_and_signed_masks_for_vectors() {
    assert!(has("isequal", "int", &["double", "double"]));
    assert!(has("isequal", "long2", &["double2", "double2"]));
    assert!(has("isnan", "int4", &["float4"]));
    assert!(has("isnan", "short8", &["half8"]));
    assert!(has("select", "float4", &["float4", "float4", "uint4"]));
    assert!(has("select", "float4", &["float4", "float4", "int4"]));
    assert!(has("select", "uchar", &["uchar", "uchar", "char"]));
    assert!(has("any", "int", &["long16"]));
    assert!(!has("any", "int", &["uint4"]));
}

#[test]
fn vector_loads_stores_and_half_conversions() {
    assert!(has("vload3", "int3", &["ulong", "const __constant int *"]));
    assert!(has(
        "vstore16",
        "void",
        &["uchar16", "ulong", "__global uchar *"]
    ));
    assert!(!has(
        "vstore4",
        "void",
        &["float4", "ulong", "__constant float *"]
    ));
    assert!(has(
        "vload_half4",
        "float4",
        &["ulong", "const __private half *"]
    ));
    assert!(has(
        "vstore_half_rtz",
        "void",
        &["float", "ulong", "__global half *"]
    ));
    assert!(has(
        "vstorea_half8_rtn",
        "void",
        &["double8", "ulong", "__local half *"]
    ));
    let load = overloads("vload_half")
        .iter()
        .find(|s| s.ret == BType::Scalar(Scalar::Float))
        .unwrap();
    assert_eq!(
        load.requires,
        Requires::default(),
        "half pointers need no cl_khr_fp16"
    );
    let half_vector = overloads("vload2")
        .iter()
        .find(|s| s.ret == BType::Vector(Scalar::Half, 2))
        .unwrap();
    assert!(half_vector.requires.fp16);
}

#[test]
fn atomics_async_copies_and_work_items() {
    assert_eq!(overloads("atomic_add").len(), 4);
    assert_eq!(overloads("atomic_xchg").len(), 6);
    assert!(has(
        "atomic_cmpxchg",
        "uint",
        &["volatile __local uint *", "uint", "uint"]
    ));
    let atom64 = overloads("atom_add")
        .iter()
        .find(|s| s.ret == BType::Scalar(Scalar::Long))
        .unwrap();
    assert!(atom64.requires.int64_atomics);
    assert!(
        !overloads("atomic_add")
            .iter()
            .any(|s| s.requires.int64_atomics)
    );
    assert!(has(
        "async_work_group_copy",
        "event_t",
        &[
            "__local float4 *",
            "const __global float4 *",
            "ulong",
            "event_t"
        ]
    ));
    assert!(has("get_global_id", "ulong", &["uint"]));
    assert!(has("barrier", "void", &["uint"]));
    assert!(has(
        "wait_group_events",
        "void",
        &["int", "__private event_t *"]
    ));
}

#[test]
fn double_and_half_overloads_are_marked() {
    let d = overloads("sqrt")
        .iter()
        .find(|s| s.ret == BType::Vector(Scalar::Double, 4))
        .unwrap();
    assert!(d.requires.fp64 && !d.requires.fp16);
    let h = overloads("sqrt")
        .iter()
        .find(|s| s.ret == BType::Scalar(Scalar::Half))
        .unwrap();
    assert!(h.requires.fp16);
    let f = overloads("sqrt")
        .iter()
        .find(|s| s.ret == BType::Scalar(Scalar::Float))
        .unwrap();
    assert_eq!(f.requires, Requires::default());
}

#[test]
fn every_builtin_has_an_id_a_function_and_consistent_attributes() {
    let mut count = 0;
    for id in BuiltinId::all() {
        count += 1;
        let b = id.builtin();
        assert_eq!(BuiltinId::lookup(&b.name), Some(id));
        assert_eq!(id.name(), b.name);
        let a = id.attributes();
        assert_eq!(a.check(), Ok(()), "{}", b.name);
        if a.writes_memory || a.reads_memory || a.synchronizes {
            assert!(!a.pure, "{} touches memory but is pure", b.name);
        }
        if a.work_item_query {
            assert!(b.name.starts_with("get_"), "{}", b.name);
        }
        // The builtins the vectorizer (compiler/src/codegen/simd) has register forms for,
        // exactly: the work-item ids as sequences, the cheap math (the integer functions of
        // char/short in their 32-bit lanes: narrow.rs), exp/log/sin/cos/pow and
        // their half_/native_ forms, the geometric functions, and vloadn / vstoren.
        let vectorized = matches!(
            b.function.name(),
            "get_global_id"
                | "vload"
                | "vstore"
                | "get_local_id"
                | "fabs"
                | "mad"
                | "rsqrt"
                | "sqrt"
                | "half_sqrt"
                | "native_sqrt"
                | "native_divide"
                | "native_recip"
                | "min"
                | "max"
                | "clamp"
                | "dot"
                | "select"
                | "add_sat"
                | "sub_sat"
                | "hadd"
                | "rhadd"
                | "mad_sat"
                | "mul_hi"
                | "abs"
                | "abs_diff"
                | "exp"
                | "exp2"
                | "exp10"
                | "log"
                | "log2"
                | "log10"
                | "sin"
                | "cos"
                | "pow"
                | "half_exp"
                | "half_exp2"
                | "half_exp10"
                | "half_log"
                | "half_log2"
                | "half_log10"
                | "half_sin"
                | "half_cos"
                | "native_exp"
                | "native_exp2"
                | "native_exp10"
                | "native_log"
                | "native_log2"
                | "native_log10"
                | "native_sin"
                | "native_cos"
                | "length"
                | "distance"
                | "normalize"
        );
        assert_eq!(a.vector_form, vectorized, "{}: vector form", b.name);
        assert!(
            b.name.starts_with(b.function.name()),
            "{} is not an instance of {}",
            b.name,
            b.function.name()
        );
    }
    assert_eq!(count, BuiltinId::all().count());
    // Every function of the enum is in the table or resolved by rule.
    for f in Function::ALL {
        assert!(
            BuiltinId::all().any(|id| id.function() == *f),
            "{} has no builtin",
            f.name()
        );
    }
}

#[test]
fn attributes_as_the_specification_describes_them() {
    let attrs = |name: &str| BuiltinId::lookup(name).unwrap().attributes();
    let sin = attrs("sin");
    assert!(sin.pure && !sin.varying && sin.uniform_with_uniform_arguments());
    let fract = attrs("fract");
    assert!(fract.writes_memory && !fract.pure && !fract.uniform_with_uniform_arguments());
    let barrier = attrs("barrier");
    assert!(barrier.synchronizes && barrier.group_barrier && !barrier.pure);
    let fence = attrs("mem_fence");
    assert!(fence.synchronizes && !fence.group_barrier);
    assert!(attrs("wait_group_events").group_barrier);
    let lid = attrs("get_local_id");
    assert!(lid.work_item_query && lid.pure && lid.varying);
    let size = attrs("get_local_size");
    assert!(size.work_item_query && size.uniform_with_uniform_arguments());
    assert!(attrs("atomic_add").varying && attrs("atom_inc").writes_memory);
    assert!(attrs("vload4").reads_memory && attrs("vstorea_half8_rtn").writes_memory);
    assert!(attrs("read_imagef").reads_memory && attrs("write_imageui").writes_memory);
    assert!(attrs("get_image_width").uniform_with_uniform_arguments());
    assert!(attrs("printf").writes_memory && attrs("shuffle2").pure);
}

#[test]
fn a_builtin_without_attributes_is_varying() {
    // What a builtin gets when nothing says what it is: never uniform, and it fails the
    // table's own check (the table cannot hold one).
    let unknown = Attributes::default();
    assert!(!unknown.uniform_with_uniform_arguments());
    assert!(unknown.check().is_err());
    let side_effect = Attributes {
        writes_memory: true,
        ..Attributes::default()
    };
    assert!(!side_effect.uniform_with_uniform_arguments());
    assert!(Attributes::parse("pure writes").is_err());
    assert!(Attributes::parse("shiny").is_err());
}

#[test]
fn names_carry_their_width_and_rounding() {
    let id = BuiltinId::lookup("vstore_half4_rtz").unwrap();
    assert_eq!(id.function(), Function::VstoreHalf);
    assert_eq!(id.builtin().width, Some(4));
    assert_eq!(id.builtin().rounding, Rounding::Rtz);
    let id = BuiltinId::lookup("vstore_half").unwrap();
    assert_eq!(
        (id.builtin().width, id.builtin().rounding),
        (None, Rounding::Default)
    );
    assert_eq!(
        BuiltinId::lookup("vload16").unwrap().builtin().width,
        Some(16)
    );
    assert_eq!(
        BuiltinId::lookup("printf").unwrap().function(),
        Function::Printf
    );
    assert!(overloads_of(BuiltinId::lookup("printf").unwrap()).is_empty());
    assert_eq!(BuiltinId::lookup("no_such_builtin"), None);
}
