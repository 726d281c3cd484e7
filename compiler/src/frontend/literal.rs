//! Literal values: integer constants (C99 6.4.4.1 with OpenCL's 64-bit `long`), floating
//! constants (decimal and hexadecimal, correctly rounded to their type, 6.4.4.2) and
//! character constants (6.4.4.4).

use super::types::Scalar;

/// An integer constant's value and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLiteral {
    pub value: u64,
    pub ty: Scalar,
}

/// Parses an integer constant. The type is the first of the candidates of C99's table that
/// holds the value: decimal without `u`: int, long; octal/hex or with `u`: also the unsigned
/// types. OpenCL C has no `long long`, so `ll` suffixes are an error.
pub fn parse_int(text: &str) -> Result<IntLiteral, String> {
    let lower = text.to_ascii_lowercase();
    let body_end = lower.trim_end_matches(['u', 'l']).len();
    let (digits, suffix) = lower.split_at(body_end);
    let (unsigned, long) = match suffix {
        "" => (false, false),
        "u" => (true, false),
        "l" => (false, true),
        "ul" | "lu" => (true, true),
        _ => {
            return Err(format!(
                "invalid suffix '{}' on integer constant",
                &text[body_end..]
            ));
        }
    };
    let (radix, body, decimal) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex, false)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..], false)
    } else {
        (10, digits, true)
    };
    if body.is_empty() {
        return Err(format!("invalid integer constant '{text}'"));
    }
    let value = u64::from_str_radix(body, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("integer constant '{text}' is too large for any type")
        }
        _ => format!("invalid digit in integer constant '{text}'"),
    })?;
    let candidates: &[Scalar] = match (unsigned, long, decimal) {
        (false, false, true) => &[Scalar::Int, Scalar::Long],
        (false, false, false) => &[Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::ULong],
        (true, false, _) => &[Scalar::UInt, Scalar::ULong],
        (false, true, true) => &[Scalar::Long],
        (false, true, false) => &[Scalar::Long, Scalar::ULong],
        (true, true, _) => &[Scalar::ULong],
    };
    let fits = |ty: Scalar| match ty {
        Scalar::Int => value <= i32::MAX as u64,
        Scalar::UInt => value <= u32::MAX as u64,
        Scalar::Long => value <= i64::MAX as u64,
        _ => true,
    };
    match candidates.iter().copied().find(|&t| fits(t)) {
        Some(ty) => Ok(IntLiteral { value, ty }),
        // A decimal constant too large for `long` becomes `ulong`, as clang does (with a
        // warning there; C99 leaves it without a type).
        None if decimal => Ok(IntLiteral {
            value,
            ty: Scalar::ULong,
        }),
        None => Err(format!(
            "integer constant '{text}' is too large for any type"
        )),
    }
}

/// A floating constant's value (exactly the value of its type, held in an `f64`) and type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatLiteral {
    pub value: f64,
    pub ty: Scalar,
}

/// Parses a floating constant: `f`/`F` makes a `float`, `h`/`H` a `half` (cl_khr_fp16),
/// none a `double`. The value is rounded once, to nearest even, straight to its type (a
/// `float` literal is not rounded through `double`, which would round twice).
pub fn parse_float(text: &str) -> Result<FloatLiteral, String> {
    let (body, ty) = match text.as_bytes().last() {
        Some(b'f' | b'F') if !is_hex(text) || text.contains(['p', 'P']) => {
            (&text[..text.len() - 1], Scalar::Float)
        }
        Some(b'h' | b'H') => (&text[..text.len() - 1], Scalar::Half),
        Some(b'l' | b'L') => return Err("'long double' is not supported in OpenCL C".into()),
        _ => (text, Scalar::Double),
    };
    let value = if is_hex(body) {
        parse_hex_float(body, ty)
            .ok_or_else(|| format!("invalid hexadecimal floating constant '{text}'"))?
    } else {
        let valid = !body.is_empty()
            && body
                .bytes()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'));
        if !valid {
            return Err(format!("invalid floating constant '{text}'"));
        }
        match ty {
            Scalar::Float => body.parse::<f32>().map(f64::from),
            Scalar::Half => body.parse::<f64>().map(round_to_half),
            _ => body.parse::<f64>(),
        }
        .map_err(|_| format!("invalid floating constant '{text}'"))?
    };
    Ok(FloatLiteral { value, ty })
}

fn is_hex(text: &str) -> bool {
    text.len() > 2 && text[..2].eq_ignore_ascii_case("0x")
}

/// `0x1.8p3` to the nearest value of `ty` (ties to even), exactly.
fn parse_hex_float(text: &str, ty: Scalar) -> Option<f64> {
    let body = &text[2..];
    let (mantissa, exponent) = body.split_once(['p', 'P'])?;
    let exponent: i64 = exponent.parse().ok()?;
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    // Collect the significant hex digits into a 128-bit integer; digits beyond what fits
    // only matter as a "sticky" bit for rounding.
    let mut bits: u128 = 0;
    let mut scale: i64 = exponent;
    let mut sticky = false;
    for (i, c) in int_part.chars().chain(frac_part.chars()).enumerate() {
        let d = u128::from(c.to_digit(16)?);
        if bits >> 120 == 0 {
            bits = (bits << 4) | d;
            if i >= int_part.len() {
                scale -= 4;
            }
        } else {
            sticky |= d != 0;
            if i < int_part.len() {
                scale += 4;
            }
        }
    }
    Some(round_binary(bits, scale, sticky, ty))
}

/// `bits × 2^scale` (plus a sticky fraction) rounded to nearest even in the format of `ty`.
fn round_binary(bits: u128, scale: i64, sticky: bool, ty: Scalar) -> f64 {
    if bits == 0 {
        return 0.0;
    }
    let (mantissa_bits, min_exp, max_exp) = match ty {
        Scalar::Half => (11, -14, 15),
        Scalar::Float => (24, -126, 127),
        _ => (53, -1022, 1023),
    };
    // Position of the leading one: value = 1.xxx × 2^top.
    let top = 127 - i64::from(bits.leading_zeros()) + scale;
    // The exponent of the last mantissa bit (denormals keep the minimum exponent).
    let lsb = (top.max(min_exp)) - (mantissa_bits - 1);
    let shift = lsb - scale;
    let (mut kept, round, rest) = if shift <= 0 {
        (bits << (-shift).min(127), false, false)
    } else if shift >= 128 {
        (0, false, true)
    } else {
        let kept = bits >> shift;
        let round = (bits >> (shift - 1)) & 1 == 1;
        let rest = bits & ((1u128 << (shift - 1)) - 1) != 0;
        (kept, round, rest)
    };
    if round && (rest || sticky || kept & 1 == 1) {
        kept += 1;
    }
    let value = times_power_of_two(kept as f64, lsb);
    if value >= 2f64.powi(max_exp + 1) {
        f64::INFINITY
    } else {
        value
    }
}

/// `x × 2^e`, exactly where the result is representable. `2f64.powi(e)` alone is not:
/// 2^-1074 (the scale of `DBL_MIN`'s last bit) is below the smallest double's reciprocal
/// range and comes out 0. Steps of 2^±1000 keep every partial product a normal double.
fn times_power_of_two(mut x: f64, mut e: i64) -> f64 {
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    x * 2f64.powi(e as i32)
}

/// The nearest `half` value of `x` (ties to even), as an `f64`.
pub fn round_to_half(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let bits = x.abs().to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = u128::from(bits & ((1 << 52) - 1) | (1 << 52));
    round_binary(mantissa, exponent - 52, false, Scalar::Half).copysign(x)
}

/// Parses a character constant (quotes included): its `int` value. A plain character is
/// its byte (char is signed); escapes as C99 6.4.4.4; multi-character constants are
/// rejected.
pub fn parse_char(text: &str) -> Result<i64, String> {
    let inner = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| "empty character constant".to_string())?;
    let bytes = unescape(inner)?;
    match bytes.as_slice() {
        [b] => Ok(i64::from(*b as i8)),
        _ => Err("multi-character character constants are not supported".into()),
    }
}

/// The bytes a string literal's body stands for (escapes resolved, no terminator).
pub fn unescape(body: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let escaped = chars.next().ok_or("incomplete escape sequence")?;
        let byte = match escaped {
            'n' => b'\n',
            't' => b'\t',
            'r' => b'\r',
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            '\\' | '\'' | '"' | '?' => escaped as u8,
            '0'..='7' => {
                let mut value = escaped.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                u8::try_from(value).map_err(|_| "octal escape sequence out of range")?
            }
            'x' => {
                let mut value: u32 = 0;
                let mut any = false;
                while let Some(d) = chars.peek().and_then(|c| c.to_digit(16)) {
                    value = value.saturating_mul(16).saturating_add(d);
                    any = true;
                    chars.next();
                }
                if !any {
                    return Err("\\x used with no following hex digits".into());
                }
                u8::try_from(value).map_err(|_| "hex escape sequence out of range")?
            }
            other => return Err(format!("unknown escape sequence '\\{other}'")),
        };
        out.push(byte);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> (u64, Scalar) {
        let l = parse_int(text).unwrap();
        (l.value, l.ty)
    }

    #[test]
    fn integer_types_follow_the_c99_table_with_64_bit_long() {
        assert_eq!(int("0"), (0, Scalar::Int));
        assert_eq!(int("2147483647"), (2147483647, Scalar::Int));
        assert_eq!(int("2147483648"), (2147483648, Scalar::Long));
        assert_eq!(int("0x7fffffff"), (0x7fffffff, Scalar::Int));
        assert_eq!(int("0x80000000"), (0x80000000, Scalar::UInt));
        assert_eq!(int("0xffffffffu"), (0xffffffff, Scalar::UInt));
        assert_eq!(int("0x100000000"), (0x100000000, Scalar::Long));
        assert_eq!(int("0xffffffffffffffff"), (u64::MAX, Scalar::ULong));
        assert_eq!(int("017"), (15, Scalar::Int));
        assert_eq!(int("10UL"), (10, Scalar::ULong));
        assert_eq!(int("10lu"), (10, Scalar::ULong));
        assert_eq!(int("5l"), (5, Scalar::Long));
        assert_eq!(int("18446744073709551615"), (u64::MAX, Scalar::ULong));
        assert!(parse_int("1ll").is_err());
        assert!(parse_int("08").is_err());
        assert!(parse_int("0x").is_err());
        assert!(parse_int("18446744073709551616").is_err());
        assert!(parse_int("12abc").is_err());
    }

    #[test]
    fn floats_round_once_to_their_own_type() {
        assert_eq!(
            parse_float("1.0f").unwrap(),
            FloatLiteral {
                value: 1.0,
                ty: Scalar::Float
            }
        );
        assert_eq!(parse_float("0.1").unwrap().value, 0.1f64);
        assert_eq!(parse_float("0.1f").unwrap().value, f64::from(0.1f32));
        // 1 + 2^-24 + 2^-60 is just above a float tie: rounding through double would give
        // 1.0 (the double tie rounds to even first), the right answer is 1 + 2^-23.
        let text = "1.00000005960464477550343112f";
        assert_eq!(
            parse_float(text).unwrap().value,
            f64::from(1.0f32 + f32::EPSILON)
        );
        assert_eq!(parse_float("1e10").unwrap().ty, Scalar::Double);
        assert_eq!(
            parse_float("1.5h").unwrap(),
            FloatLiteral {
                value: 1.5,
                ty: Scalar::Half
            }
        );
        assert_eq!(parse_float("0.1h").unwrap().value, 0.0999755859375);
        assert!(parse_float("1.0L").is_err());
        assert!(parse_float("1.0.0").is_err());
    }

    #[test]
    fn hex_floats_are_exact() {
        assert_eq!(parse_float("0x1p-2").unwrap().value, 0.25);
        // The double limits: DBL_MIN, the least denormal, DBL_MAX.
        assert_eq!(parse_float("0x1.0p-1022").unwrap().value, f64::MIN_POSITIVE);
        assert_eq!(parse_float("0x1p-1074").unwrap().value, 5e-324);
        assert_eq!(
            parse_float("0x1.fffffffffffffp1023").unwrap().value,
            f64::MAX
        );
        assert_eq!(parse_float("0x1.8p3").unwrap().value, 12.0);
        assert_eq!(
            parse_float("0x1.fffffep127f").unwrap().value,
            f64::from(f32::MAX)
        );
        assert_eq!(
            parse_float("0x1.0p-126f").unwrap().value,
            f64::from(f32::MIN_POSITIVE)
        );
        assert_eq!(
            parse_float("0x1p-149f").unwrap().value,
            f64::from(f32::from_bits(1))
        );
        assert_eq!(parse_float("0x1.fffffffp0f").unwrap().value, 2.0);
        assert_eq!(parse_float("0x.8p1").unwrap().value, 1.0);
        assert_eq!(parse_float("0x1p128f").unwrap().value, f64::INFINITY);
        // The double limits at the ends of the exponent range (DBL_MIN, the smallest
        // subnormal, DBL_MAX), and decimal spellings of tiny values.
        assert_eq!(parse_float("0x1.0p-1022").unwrap().value, f64::MIN_POSITIVE);
        assert_eq!(parse_float("0x1p-1074").unwrap().value, f64::from_bits(1));
        assert_eq!(parse_float("0x1.8p-1074").unwrap().value, f64::from_bits(2));
        assert_eq!(parse_float("0x1p-1076").unwrap().value, 0.0);
        assert_eq!(
            parse_float("0x1.fffffffffffffp1023").unwrap().value,
            f64::MAX
        );
        assert_eq!(parse_float("0x1p1024").unwrap().value, f64::INFINITY);
        assert_eq!(parse_float("0x1p-24h").unwrap().value, 2f64.powi(-24));
        // Double denormals (2^-1074 is not 0; 2^-1075 ties to even, to 0).
        assert_eq!(parse_float("0x1p-1074").unwrap().value.to_bits(), 1);
        assert_eq!(parse_float("0x1.8p-1073").unwrap().value.to_bits(), 3);
        assert_eq!(parse_float("0x1p-1075").unwrap().value, 0.0);
        assert_eq!(parse_float("0x1p-1023").unwrap().value.to_bits(), 1 << 51);
        assert_eq!(
            parse_float("0x1.0000000000001p0").unwrap().value,
            1.0 + f64::EPSILON
        );
    }

    #[test]
    fn character_constants_and_escapes() {
        assert_eq!(parse_char("'a'"), Ok(97));
        assert_eq!(parse_char(r"'\n'"), Ok(10));
        assert_eq!(parse_char(r"'\377'"), Ok(-1));
        assert_eq!(parse_char(r"'\x41'"), Ok(65));
        assert_eq!(parse_char(r"'\''"), Ok(39));
        assert!(parse_char("'ab'").is_err());
        assert!(parse_char("''").is_err());
        assert!(parse_char(r"'\q'").is_err());
        assert_eq!(unescape(r"a\tb\0").unwrap(), b"a\tb\0");
    }
}
