//! The predefined macros, written as source text (`#define` lines) that the preprocessor
//! reads before the program, as the file `<built-in>`; `-D`/`-U` follow as `<command line>`.
//!
//! Values are OpenCL C 1.2's (§6.10 preprocessor macros, §6.12.2 math constants and float
//! limits, §6.12.3 integer limits). Floating constants are hex literals made from Rust's
//! correctly rounded constants, so they are exact and need no decimal conversion.
//! `INFINITY`, `NAN` and `HUGE_VAL[F]` expand to builtins the parser knows:
//! `__builtin_inff()` (float +∞) and `__builtin_nanf("")` (a quiet float NaN).

use std::fmt::Write as _;

use super::PreprocessOptions;

/// The `<built-in>` file for `options`.
pub(super) fn builtin_source(options: &PreprocessOptions) -> String {
    let mut s = String::new();
    let mut define = |name: &str, value: &str| {
        let _ = writeln!(s, "#define {name} {value}");
    };
    // C99 6.10.8 (OpenCL C is C99-based; clang defines these in OpenCL mode too).
    define("__STDC__", "1");
    define("__STDC_VERSION__", "199901L");
    // OpenCL C 1.2 §6.10.
    define("__OPENCL_VERSION__", "120");
    define(
        "__OPENCL_C_VERSION__",
        &options.opencl_c_version.to_string(),
    );
    define("CL_VERSION_1_0", "100");
    define("CL_VERSION_1_1", "110");
    define("CL_VERSION_1_2", "120");
    // Later versions' numbers too, as clang defines them whatever the -cl-std: a program's
    // `#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0` must compare with 200, not with an
    // undefined name's 0 (the CTS work-item tests guard 2.0 builtins that way).
    define("CL_VERSION_2_0", "200");
    define("CL_VERSION_3_0", "300");
    define("__ENDIAN_LITTLE__", "1");
    define("__CLIFT__", "1");
    if options.image_support {
        define("__IMAGE_SUPPORT__", "1");
    }
    if options.fast_relaxed_math {
        define("__FAST_RELAXED_MATH__", "1");
    }
    define(
        "__kernel_exec(X, typen)",
        "__kernel __attribute__((work_group_size_hint(X, 1, 1))) __attribute__((vec_type_hint(typen)))",
    );
    define(
        "kernel_exec(X, typen)",
        "__kernel __attribute__((work_group_size_hint(X, 1, 1))) __attribute__((vec_type_hint(typen)))",
    );
    for ext in &options.extensions {
        if is_identifier(ext) {
            define(ext, "1");
        }
    }
    // §6.12.2: floating-point macros and limits.
    if options.fast_fma {
        define("FP_FAST_FMAF", "1");
        if options.fp64 {
            define("FP_FAST_FMA", "1");
        }
    }
    // clang's opencl-c-base.h defines NULL for every OpenCL C version; programs written for
    // clang-based drivers compare pointers of every address space with it.
    define("NULL", "((void*)0)");
    define("MAXFLOAT", "0x1.fffffep127f");
    // The values ilogb returns for zero and NaN (builtins::math::FP_ILOGB0 / FP_ILOGBNAN).
    define("FP_ILOGB0", "(-2147483647-1)");
    define("FP_ILOGBNAN", "2147483647");
    define("HUGE_VALF", "(__builtin_inff())");
    define("INFINITY", "(__builtin_inff())");
    define("NAN", "(__builtin_nanf(\"\"))");
    if options.fp64 {
        define("HUGE_VAL", "((double)__builtin_inff())");
    }
    define("FLT_DIG", "6");
    define("FLT_MANT_DIG", "24");
    define("FLT_MAX_10_EXP", "+38");
    define("FLT_MAX_EXP", "+128");
    define("FLT_MIN_10_EXP", "-37");
    define("FLT_MIN_EXP", "-125");
    define("FLT_RADIX", "2");
    define("FLT_MAX", "0x1.fffffep127f");
    define("FLT_MIN", "0x1.0p-126f");
    define("FLT_EPSILON", "0x1.0p-23f");
    if options.fp64 {
        define("DBL_DIG", "15");
        define("DBL_MANT_DIG", "53");
        define("DBL_MAX_10_EXP", "+308");
        define("DBL_MAX_EXP", "+1024");
        define("DBL_MIN_10_EXP", "-307");
        define("DBL_MIN_EXP", "-1021");
        // Not in the 1.2 spec's table, but in clang's opencl-c-base.h, and the CTS's
        // kernel_numeric_constants uses it.
        define("DBL_RADIX", "2");
        define("DBL_MAX", "0x1.fffffffffffffp1023");
        define("DBL_MIN", "0x1.0p-1022");
        define("DBL_EPSILON", "0x1.0p-52");
    }
    // §6.12.3: integer limits (char is signed).
    define("CHAR_BIT", "8");
    define("SCHAR_MAX", "127");
    define("SCHAR_MIN", "(-127-1)");
    define("CHAR_MAX", "SCHAR_MAX");
    define("CHAR_MIN", "SCHAR_MIN");
    define("UCHAR_MAX", "255");
    define("SHRT_MAX", "32767");
    define("SHRT_MIN", "(-32767-1)");
    define("USHRT_MAX", "65535");
    define("INT_MAX", "2147483647");
    define("INT_MIN", "(-2147483647-1)");
    define("UINT_MAX", "0xffffffff");
    define("LONG_MAX", "0x7fffffffffffffffL");
    define("LONG_MIN", "(-0x7fffffffffffffffL-1)");
    define("ULONG_MAX", "0xffffffffffffffffUL");
    // §6.12.2: math constants, float always, double with fp64.
    use std::f64::consts as c;
    let constants: [(&str, f64); 13] = [
        ("M_E", c::E),
        ("M_LOG2E", c::LOG2_E),
        ("M_LOG10E", c::LOG10_E),
        ("M_LN2", c::LN_2),
        ("M_LN10", c::LN_10),
        ("M_PI", c::PI),
        ("M_PI_2", c::FRAC_PI_2),
        ("M_PI_4", c::FRAC_PI_4),
        ("M_1_PI", c::FRAC_1_PI),
        ("M_2_PI", c::FRAC_2_PI),
        ("M_2_SQRTPI", c::FRAC_2_SQRT_PI),
        ("M_SQRT2", c::SQRT_2),
        ("M_SQRT1_2", c::FRAC_1_SQRT_2),
    ];
    let fp16 = options.extensions.iter().any(|e| e == "cl_khr_fp16");
    for (name, value) in constants {
        define(&format!("{name}_F"), &hex_f32(value as f32));
        if options.fp64 {
            define(name, &hex_f64(value));
        }
        if fp16 {
            define(&format!("{name}_H"), &half_constant(value));
        }
    }
    // cl_khr_fp16 §9.5.2: the half limits (clang's values, where the extension is there).
    if fp16 {
        define("HALF_DIG", "3");
        define("HALF_MANT_DIG", "11");
        define("HALF_MAX_10_EXP", "+4");
        define("HALF_MAX_EXP", "+16");
        define("HALF_MIN_10_EXP", "-4");
        define("HALF_MIN_EXP", "-13");
        define("HALF_RADIX", "2");
        define("HALF_MAX", &half_constant(65504.0));
        define("HALF_MIN", &half_constant(2f64.powi(-14)));
        define("HALF_EPSILON", &half_constant(2f64.powi(-10)));
    }
    s
}

/// `x` rounded once (to nearest even) to half, as a `half` expression: the half value is
/// exact as a float literal, so the cast adds no second rounding.
fn half_constant(x: f64) -> String {
    use clift_builtins::convert::Rounding;
    let h = clift_builtins::half::reference_to_half(x, Rounding::Default);
    // A positive normal half: 5 exponent bits (bias 15), 10 mantissa bits.
    let exponent = i32::from((h >> 10) & 0x1f) - 15;
    let mantissa = u32::from(h & 0x3ff);
    let f = f32::from_bits((((exponent + 127) as u32) << 23) | (mantissa << 13));
    format!("((half){})", hex_f32(f))
}

/// The `<command line>` file: `-D` then `-U`, in order (empty when there are none).
pub(super) fn command_line_source(options: &PreprocessOptions) -> String {
    // A newline in an option would end the directive early and start another line: they
    // become spaces, so an option can only ever make one directive.
    let flat = |s: &str| s.replace(['\n', '\r'], " ");
    let mut s = String::new();
    for (name, value) in &options.defines {
        let value = value.as_deref().map_or_else(|| "1".to_string(), flat);
        let _ = writeln!(s, "#define {} {value}", flat(name));
    }
    for name in &options.undefines {
        let _ = writeln!(s, "#undef {}", flat(name));
    }
    s
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A normal, positive `float` as an exact C hex literal (`0x1.921fb6p+1f`).
pub(super) fn hex_f32(x: f32) -> String {
    let bits = x.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32 - 127;
    let mantissa = (bits & 0x7f_ffff) << 1;
    format!("0x1.{mantissa:06x}p{exponent:+}f")
}

/// A normal, positive `double` as an exact C hex literal (`0x1.921fb54442d18p+1`).
pub(super) fn hex_f64(x: f64) -> String {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let mantissa = bits & 0xf_ffff_ffff_ffff;
    format!("0x1.{mantissa:013x}p{exponent:+}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_literals_are_exact() {
        assert_eq!(hex_f32(std::f32::consts::PI), "0x1.921fb6p+1f");
        assert_eq!(hex_f64(std::f64::consts::PI), "0x1.921fb54442d18p+1");
        assert_eq!(hex_f32(0.5), "0x1.000000p-1f");
    }

    #[test]
    fn dbl_radix_comes_with_fp64() {
        let source = builtin_source(&PreprocessOptions {
            fp64: true,
            ..PreprocessOptions::default()
        });
        assert!(source.contains("#define DBL_RADIX 2\n"));
        assert!(!builtin_source(&PreprocessOptions::default()).contains("DBL_RADIX"));
    }

    #[test]
    fn ilogb_macros_are_defined() {
        let source = builtin_source(&PreprocessOptions::default());
        assert!(source.contains("FP_ILOGB0"), "FP_ILOGB0 missing");
        assert!(source.contains("FP_ILOGBNAN"), "FP_ILOGBNAN missing");
    }
}
