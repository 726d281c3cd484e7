//! Every predefined macro's value (OpenCL C 1.2 §6.10, §6.12.2, §6.12.3), with and without
//! the options that add some.

use clift_compiler::frontend::diag::Diagnostics;
use clift_compiler::frontend::preprocess::PreprocessOptions;

use super::{norm, run_with};

/// `name`'s expansion under `options`, checked free of diagnostics.
fn value(name: &str, options: &PreprocessOptions) -> String {
    let r = run_with(name, options, Diagnostics::new());
    assert_eq!(r.log(), "", "{name}");
    r.text()
}

fn all_options() -> PreprocessOptions {
    PreprocessOptions {
        extensions: vec![
            "cl_khr_fp64".into(),
            "cl_khr_byte_addressable_store".into(),
            "not an identifier".into(),
        ],
        fast_relaxed_math: true,
        image_support: true,
        fp64: true,
        fast_fma: true,
        opencl_c_version: 110,
        ..PreprocessOptions::default()
    }
}

#[test]
fn version_and_feature_macros() {
    let plain = PreprocessOptions::default();
    let all = all_options();
    for (name, expected) in [
        ("__OPENCL_VERSION__", "120"),
        ("__OPENCL_C_VERSION__", "120"),
        ("CL_VERSION_1_0", "100"),
        ("CL_VERSION_1_1", "110"),
        ("CL_VERSION_1_2", "120"),
        ("CL_VERSION_2_0", "200"),
        ("CL_VERSION_3_0", "300"),
        ("__ENDIAN_LITTLE__", "1"),
        ("__CLIFT__", "1"),
        ("__STDC__", "1"),
        ("__STDC_VERSION__", "199901L"),
        // Not defined without their options.
        ("__IMAGE_SUPPORT__", "__IMAGE_SUPPORT__"),
        ("__FAST_RELAXED_MATH__", "__FAST_RELAXED_MATH__"),
        ("FP_FAST_FMAF", "FP_FAST_FMAF"),
        ("FP_FAST_FMA", "FP_FAST_FMA"),
        ("cl_khr_fp64", "cl_khr_fp64"),
    ] {
        assert_eq!(value(name, &plain), expected, "{name}");
    }
    for (name, expected) in [
        ("__OPENCL_VERSION__", "120"),
        ("__OPENCL_C_VERSION__", "110"),
        ("__IMAGE_SUPPORT__", "1"),
        ("__FAST_RELAXED_MATH__", "1"),
        ("FP_FAST_FMAF", "1"),
        ("FP_FAST_FMA", "1"),
        ("cl_khr_fp64", "1"),
        ("cl_khr_byte_addressable_store", "1"),
    ] {
        assert_eq!(value(name, &all), expected, "{name}");
    }
    // FP_FAST_FMA is about double: not without fp64.
    let no_fp64 = PreprocessOptions {
        fast_fma: true,
        ..PreprocessOptions::default()
    };
    assert_eq!(
        (
            value("FP_FAST_FMAF", &no_fp64),
            value("FP_FAST_FMA", &no_fp64)
        ),
        ("1".into(), "FP_FAST_FMA".into())
    );
    let expected = "__kernel __attribute__ ( ( work_group_size_hint ( 64 , 1 , 1 ) ) ) __attribute__ ( ( vec_type_hint ( float4 ) ) )";
    assert_eq!(value("__kernel_exec(64, float4)", &plain), expected);
    assert_eq!(value("kernel_exec(64, float4)", &plain), expected);
}

#[test]
fn float_macros() {
    let plain = PreprocessOptions::default();
    let all = all_options();
    for (name, expected) in [
        ("MAXFLOAT", "0x1.fffffep127f"),
        ("HUGE_VALF", "(__builtin_inff())"),
        ("INFINITY", "(__builtin_inff())"),
        ("NAN", "(__builtin_nanf(\"\"))"),
        ("FLT_DIG", "6"),
        ("FLT_MANT_DIG", "24"),
        ("FLT_MAX_10_EXP", "+38"),
        ("FLT_MAX_EXP", "+128"),
        ("FLT_MIN_10_EXP", "-37"),
        ("FLT_MIN_EXP", "-125"),
        ("FLT_RADIX", "2"),
        ("FLT_MAX", "0x1.fffffep127f"),
        ("FLT_MIN", "0x1.0p-126f"),
        ("FLT_EPSILON", "0x1.0p-23f"),
        ("M_E_F", "0x1.5bf0a8p+1f"),
        ("M_LOG2E_F", "0x1.715476p+0f"),
        ("M_LOG10E_F", "0x1.bcb7b2p-2f"),
        ("M_LN2_F", "0x1.62e430p-1f"),
        ("M_LN10_F", "0x1.26bb1cp+1f"),
        ("M_PI_F", "0x1.921fb6p+1f"),
        ("M_PI_2_F", "0x1.921fb6p+0f"),
        ("M_PI_4_F", "0x1.921fb6p-1f"),
        ("M_1_PI_F", "0x1.45f306p-2f"),
        ("M_2_PI_F", "0x1.45f306p-1f"),
        ("M_2_SQRTPI_F", "0x1.20dd76p+0f"),
        ("M_SQRT2_F", "0x1.6a09e6p+0f"),
        ("M_SQRT1_2_F", "0x1.6a09e6p-1f"),
        // The double ones only with fp64.
        ("M_PI", "M_PI"),
        ("DBL_MAX", "DBL_MAX"),
        ("HUGE_VAL", "HUGE_VAL"),
    ] {
        assert_eq!(value(name, &plain), norm(expected), "{name}");
    }
    for (name, expected) in [
        ("HUGE_VAL", "((double)__builtin_inff())"),
        ("DBL_DIG", "15"),
        ("DBL_MANT_DIG", "53"),
        ("DBL_MAX_10_EXP", "+308"),
        ("DBL_MAX_EXP", "+1024"),
        ("DBL_MIN_10_EXP", "-307"),
        ("DBL_MIN_EXP", "-1021"),
        ("DBL_MAX", "0x1.fffffffffffffp1023"),
        ("DBL_MIN", "0x1.0p-1022"),
        ("DBL_EPSILON", "0x1.0p-52"),
        ("M_E", "0x1.5bf0a8b145769p+1"),
        ("M_LOG2E", "0x1.71547652b82fep+0"),
        ("M_LOG10E", "0x1.bcb7b1526e50ep-2"),
        ("M_LN2", "0x1.62e42fefa39efp-1"),
        ("M_LN10", "0x1.26bb1bbb55516p+1"),
        ("M_PI", "0x1.921fb54442d18p+1"),
        ("M_PI_2", "0x1.921fb54442d18p+0"),
        ("M_PI_4", "0x1.921fb54442d18p-1"),
        ("M_1_PI", "0x1.45f306dc9c883p-2"),
        ("M_2_PI", "0x1.45f306dc9c883p-1"),
        ("M_2_SQRTPI", "0x1.20dd750429b6dp+0"),
        ("M_SQRT2", "0x1.6a09e667f3bcdp+0"),
        ("M_SQRT1_2", "0x1.6a09e667f3bcdp-1"),
    ] {
        assert_eq!(value(name, &all), norm(expected), "{name}");
    }
}

/// The hex literals are the correctly rounded values: check them against Rust's constants.
#[test]
fn math_constants_are_exact() {
    use std::f32::consts as f;
    use std::f64::consts as d;
    let floats = [
        ("M_E_F", f::E),
        ("M_LOG2E_F", f::LOG2_E),
        ("M_LOG10E_F", f::LOG10_E),
        ("M_LN2_F", f::LN_2),
        ("M_LN10_F", f::LN_10),
        ("M_PI_F", f::PI),
        ("M_PI_2_F", f::FRAC_PI_2),
        ("M_PI_4_F", f::FRAC_PI_4),
        ("M_1_PI_F", f::FRAC_1_PI),
        ("M_2_PI_F", f::FRAC_2_PI),
        ("M_2_SQRTPI_F", f::FRAC_2_SQRT_PI),
        ("M_SQRT2_F", f::SQRT_2),
        ("M_SQRT1_2_F", f::FRAC_1_SQRT_2),
    ];
    let options = all_options();
    for (name, expected) in floats {
        let text = value(name, &options);
        assert_eq!(
            parse_hex(text.trim_end_matches('f')) as f32,
            expected,
            "{name}"
        );
        let double = value(name.trim_end_matches("_F"), &options);
        let expected64 = match name {
            "M_E_F" => d::E,
            "M_LOG2E_F" => d::LOG2_E,
            "M_LOG10E_F" => d::LOG10_E,
            "M_LN2_F" => d::LN_2,
            "M_LN10_F" => d::LN_10,
            "M_PI_F" => d::PI,
            "M_PI_2_F" => d::FRAC_PI_2,
            "M_PI_4_F" => d::FRAC_PI_4,
            "M_1_PI_F" => d::FRAC_1_PI,
            "M_2_PI_F" => d::FRAC_2_PI,
            "M_2_SQRTPI_F" => d::FRAC_2_SQRT_PI,
            "M_SQRT2_F" => d::SQRT_2,
            _ => d::FRAC_1_SQRT_2,
        };
        assert_eq!(parse_hex(&double), expected64, "{name} without _F");
    }
}

/// `0x1.<hex>p<exp>` (what the macros use) as a double.
fn parse_hex(text: &str) -> f64 {
    let rest = text.strip_prefix("0x1.").expect("hex literal");
    let (mantissa, exponent) = rest.split_once('p').expect("exponent");
    let mut value = 1.0f64;
    let mut scale = 1.0 / 16.0;
    for digit in mantissa.chars() {
        value += f64::from(digit.to_digit(16).expect("hex digit")) * scale;
        scale /= 16.0;
    }
    value * 2f64.powi(exponent.parse().expect("exponent"))
}

#[test]
fn integer_limits() {
    let plain = PreprocessOptions::default();
    for (name, expected) in [
        ("CHAR_BIT", "8"),
        ("CHAR_MAX", "127"),
        ("CHAR_MIN", "(-127-1)"),
        ("SCHAR_MAX", "127"),
        ("SCHAR_MIN", "(-127-1)"),
        ("UCHAR_MAX", "255"),
        ("SHRT_MAX", "32767"),
        ("SHRT_MIN", "(-32767-1)"),
        ("USHRT_MAX", "65535"),
        ("INT_MAX", "2147483647"),
        ("INT_MIN", "(-2147483647-1)"),
        ("UINT_MAX", "0xffffffff"),
        ("LONG_MAX", "0x7fffffffffffffffL"),
        ("LONG_MIN", "(-0x7fffffffffffffffL-1)"),
        ("ULONG_MAX", "0xffffffffffffffffUL"),
    ] {
        assert_eq!(value(name, &plain), norm(expected), "{name}");
    }
    // They work in #if too.
    let text = "#if INT_MIN < 0 && LONG_MIN < 0 && ULONG_MAX == -1 && CHAR_MIN == -128 && UINT_MAX == 4294967295\nok\n#endif";
    assert_eq!(value(text, &plain), "ok");
}

#[test]
fn half_macros_come_with_cl_khr_fp16() {
    // cl_khr_fp16 §9.5.2: HALF_DIG ... HALF_EPSILON and the M_*_H constants, each the
    // value rounded once to half.
    let fp16 = PreprocessOptions {
        extensions: vec!["cl_khr_fp16".into()],
        ..PreprocessOptions::default()
    };
    for (name, expected) in [
        ("HALF_DIG", "3"),
        ("HALF_MANT_DIG", "11"),
        ("HALF_MAX_10_EXP", "+4"),
        ("HALF_MAX_EXP", "+16"),
        ("HALF_MIN_10_EXP", "-4"),
        ("HALF_MIN_EXP", "-13"),
        ("HALF_RADIX", "2"),
        ("HALF_MAX", "((half)0x1.ffc000p+15f)"),
        ("HALF_MIN", "((half)0x1.000000p-14f)"),
        ("HALF_EPSILON", "((half)0x1.000000p-10f)"),
        // pi = 0x1.921fb5...p+1 rounds to 0x1.920p+1 (3.140625); e to 0x1.5c0p+1 (2.71875).
        ("M_PI_H", "((half)0x1.920000p+1f)"),
        ("M_E_H", "((half)0x1.5c0000p+1f)"),
        ("M_SQRT1_2_H", "((half)0x1.6a0000p-1f)"),
    ] {
        assert_eq!(value(name, &fp16), norm(expected), "{name}");
    }
    let plain = PreprocessOptions::default();
    assert_eq!(value("HALF_MAX", &plain), "HALF_MAX");
    assert_eq!(value("M_PI_H", &plain), "M_PI_H");
}

#[test]
fn dbl_radix_comes_with_fp64() {
    // §6.12.2: DBL_RADIX is 2, defined with the other double limits.
    let fp64 = PreprocessOptions {
        fp64: true,
        ..PreprocessOptions::default()
    };
    assert_eq!(value("DBL_RADIX", &fp64), "2");
    assert_eq!(
        value("DBL_RADIX", &PreprocessOptions::default()),
        "DBL_RADIX"
    );
}
