//! A C integer constant expression evaluator, just large enough for the `#define`s of the Khronos
//! headers: decimal, octal and hex literals with `u`/`l`/`ll` suffixes, macro references
//! (expanded textually, as the preprocessor does), casts to integer types such as
//! `((cl_bitfield)1 << 3)`, and the unary and binary integer operators.
//!
//! It follows C's typing rules for an LP64 target (`int` 32 bits, `long` 64 bits) rather than
//! computing in one big integer, because the value of `~0u` or `-1 < 0u` depends on the types:
//! a header constant is only "the same value" if it is evaluated the way a C compiler would.
//! Anything outside that subset (floats, strings, unknown identifiers, signed overflow, which C
//! leaves undefined) is an error, never a guess.

use std::collections::HashSet;

/// An integer type: its size and signedness are all that constant evaluation needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CType {
    pub bytes: u32,
    pub signed: bool,
}

impl CType {
    pub const INT: CType = CType::new(4, true);
    pub const UINT: CType = CType::new(4, false);
    pub const LONG: CType = CType::new(8, true);
    pub const ULONG: CType = CType::new(8, false);

    pub const fn new(bytes: u32, signed: bool) -> CType {
        CType { bytes, signed }
    }

    fn bits(self) -> u32 {
        self.bytes * 8
    }

    fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }

    fn fits(self, v: i128) -> bool {
        (self.min()..=self.max()).contains(&v)
    }

    /// Conversion to this type: modulo 2^bits, as C converts to unsigned types (and as every
    /// real compiler converts to signed ones).
    fn wrap(self, v: i128) -> i128 {
        let modulus = 1i128 << self.bits();
        let r = v.rem_euclid(modulus);
        if r > self.max() { r - modulus } else { r }
    }

    /// Integer promotion: everything narrower than `int` becomes `int`.
    fn promoted(self) -> CType {
        if self.bytes < 4 { CType::INT } else { self }
    }

    /// The usual arithmetic conversions (C11 6.3.1.8) for two promoted integer types.
    fn common(a: CType, b: CType) -> CType {
        let (a, b) = (a.promoted(), b.promoted());
        if a == b {
            return a;
        }
        if a.signed == b.signed {
            return if a.bytes >= b.bytes { a } else { b };
        }
        let (unsigned, signed) = if a.signed { (b, a) } else { (a, b) };
        if unsigned.bytes >= signed.bytes {
            unsigned
        } else {
            signed
        }
    }
}

/// A typed constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    pub value: i128,
    pub ty: CType,
}

impl Value {
    fn new(value: i128, ty: CType) -> Value {
        Value { value, ty }
    }

    fn convert(self, ty: CType) -> Value {
        Value::new(ty.wrap(self.value), ty)
    }

    fn promoted(self) -> Value {
        self.convert(self.ty.promoted())
    }

    fn boolean(b: bool) -> Value {
        Value::new(i128::from(b), CType::INT)
    }
}

/// What the evaluator needs to know about the header it reads.
pub trait Env {
    /// The replacement text of the object-like macro `name`, if there is one.
    fn macro_body(&self, name: &str) -> Option<&str>;
    /// The integer type that the type name `name` (e.g. `cl_bitfield`) stands for, if any.
    fn int_type(&self, name: &str) -> Option<CType>;
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Num(Value),
    Ident(String),
    Punct(&'static str),
}

/// Longest first, so that `<<` is not read as two `<`.
const PUNCTUATORS: &[&str] = &[
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "~", "!", "-", "+", "*", "/", "%",
    "<", ">", "&", "^", "|",
];

/// Evaluates `expr` (the replacement text of a `#define`, or any constant expression).
pub fn eval(expr: &str, env: &dyn Env) -> Result<Value, String> {
    let mut expanding = HashSet::new();
    let tokens = expand(tokenize(expr)?, env, &mut expanding)?;
    if tokens.is_empty() {
        return Err(format!("`{expr}` is empty, not an integer constant"));
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        env,
    };
    let value = parser.binary(0)?;
    match parser.tokens.get(parser.pos) {
        None => Ok(value),
        Some(t) => Err(format!("unexpected {t:?} in `{expr}`")),
    }
}

fn tokenize(src: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else if c.is_ascii_digit() {
            // A preprocessing number: digits, letters (suffixes, hex digits), `_` and `.`.
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            out.push(Tok::Num(parse_number(&rest[..end])?));
            rest = &rest[end..];
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push(Tok::Ident(rest[..end].to_string()));
            rest = &rest[end..];
        } else if let Some(p) = PUNCTUATORS.iter().find(|p| rest.starts_with(**p)) {
            out.push(Tok::Punct(p));
            rest = &rest[p.len()..];
        } else {
            return Err(format!("unsupported character {c:?} in `{src}`"));
        }
    }
    Ok(out)
}

/// An integer literal, typed as C11 6.4.4.1 types it (LP64: `long` and `long long` are the same).
fn parse_number(text: &str) -> Result<Value, String> {
    let lower = text.to_ascii_lowercase();
    let (digits, radix) = if let Some(hex) = lower.strip_prefix("0x") {
        (hex, 16)
    } else if let Some(octal) = lower.strip_prefix('0') {
        (octal, 8)
    } else {
        (lower.as_str(), 10)
    };
    if lower.contains('.') || (radix != 16 && (lower.contains('e') || lower.ends_with('f'))) {
        return Err(format!("{text} is a floating constant, not an integer"));
    }
    let split = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let (number, suffix) = digits.split_at(split);
    let magnitude = match (number.is_empty(), radix) {
        (true, 8) => 0, // plain `0` (or `0u`): the leading 0 was the whole number
        (true, _) => return Err(format!("{text} has no digits")),
        (false, _) => u128::from_str_radix(number, radix).map_err(|e| format!("{text}: {e}"))?,
    };
    let unsigned = match suffix {
        "" | "l" | "ll" => false,
        "u" | "ul" | "lu" | "ull" | "llu" => true,
        _ => return Err(format!("{text} has an invalid suffix `{suffix}`")),
    };
    let long = suffix.contains('l');
    let candidates: &[CType] = match (unsigned, long, radix == 10) {
        (false, false, true) => &[CType::INT, CType::LONG],
        (false, false, false) => &[CType::INT, CType::UINT, CType::LONG, CType::ULONG],
        (true, false, _) => &[CType::UINT, CType::ULONG],
        (false, true, true) => &[CType::LONG],
        (false, true, false) => &[CType::LONG, CType::ULONG],
        (true, true, _) => &[CType::ULONG],
    };
    let value = i128::try_from(magnitude).map_err(|_| format!("{text} is too large"))?;
    candidates
        .iter()
        .find(|t| t.fits(value))
        .map(|&t| Value::new(value, t))
        .ok_or_else(|| format!("{text} does not fit any integer type"))
}

/// Replaces macro names by their (recursively expanded) bodies. A macro is not expanded inside
/// its own expansion, as in C, so a self-referential macro ends as an unknown identifier.
fn expand(
    tokens: Vec<Tok>,
    env: &dyn Env,
    expanding: &mut HashSet<String>,
) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    for tok in tokens {
        let body = match &tok {
            Tok::Ident(name) if !expanding.contains(name) => env.macro_body(name),
            _ => None,
        };
        match (body, tok) {
            (Some(body), Tok::Ident(name)) => {
                expanding.insert(name.clone());
                let expanded = expand(tokenize(body)?, env, expanding);
                expanding.remove(&name);
                out.extend(expanded?);
            }
            (_, tok) => out.push(tok),
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<Tok>,
    pos: usize,
    env: &'a dyn Env,
}

fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl Parser<'_> {
    fn next(&mut self) -> Option<Tok> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expect(&mut self, p: &str) -> Result<(), String> {
        match self.next() {
            Some(Tok::Punct(q)) if q == p => Ok(()),
            other => Err(format!("expected `{p}`, found {other:?}")),
        }
    }

    /// Binary operators of precedence `min` or higher, left-associative.
    fn binary(&mut self, min: u8) -> Result<Value, String> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Punct(op)) = self.tokens.get(self.pos) {
            let op: &'static str = op;
            match precedence(op) {
                Some(prec) if prec >= min => {
                    self.pos += 1;
                    let rhs = self.binary(prec + 1)?;
                    lhs = apply(op, lhs, rhs)?;
                }
                _ => break,
            }
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Value, String> {
        match self.next() {
            Some(Tok::Num(v)) => Ok(v),
            Some(Tok::Punct("-")) => {
                let v = self.unary()?.promoted();
                checked(v.ty, -v.value, "negation")
            }
            Some(Tok::Punct("+")) => Ok(self.unary()?.promoted()),
            Some(Tok::Punct("~")) => {
                let v = self.unary()?.promoted();
                Ok(Value::new(v.ty.wrap(!v.value), v.ty))
            }
            Some(Tok::Punct("!")) => Ok(Value::boolean(self.unary()?.value == 0)),
            Some(Tok::Punct("(")) => {
                if let Some(ty) = self.cast_type() {
                    return Ok(self.unary()?.convert(ty));
                }
                let v = self.binary(0)?;
                self.expect(")")?;
                Ok(v)
            }
            Some(Tok::Ident(name)) => Err(format!("`{name}` is not a macro with a value")),
            other => Err(format!("expected an operand, found {other:?}")),
        }
    }

    /// After a `(`: if a type name and `)` follow, consumes them and returns the type.
    fn cast_type(&mut self) -> Option<CType> {
        let mut words = Vec::new();
        let mut i = self.pos;
        while let Some(Tok::Ident(w)) = self.tokens.get(i) {
            words.push(w.as_str());
            i += 1;
        }
        if words.is_empty() || self.tokens.get(i) != Some(&Tok::Punct(")")) {
            return None;
        }
        let ty = match words.as_slice() {
            [name] if self.env.int_type(name).is_some() => self.env.int_type(name),
            _ => builtin_type(&words),
        }?;
        self.pos = i + 1;
        Some(ty)
    }
}

/// A type spelled with C keywords (`unsigned long`, `int`, ...), if `words` is one.
fn builtin_type(words: &[&str]) -> Option<CType> {
    let mut unsigned = false;
    let mut bytes = None;
    let mut longs = 0;
    for w in words {
        match *w {
            "unsigned" => unsigned = true,
            "signed" => {}
            "char" => bytes = Some(1),
            "short" => bytes = Some(2),
            "int" => {}
            "long" => longs += 1,
            _ => return None,
        }
    }
    let bytes = match (bytes, longs) {
        (Some(b), 0) => b,
        (None, 0) => 4,
        (None, _) => 8,
        (Some(_), _) => return None,
    };
    Some(CType::new(bytes, !unsigned))
}

/// `value` as a result of type `ty`, or an error where C says signed overflow is undefined.
fn checked(ty: CType, value: i128, what: &str) -> Result<Value, String> {
    if ty.signed && !ty.fits(value) {
        return Err(format!(
            "signed overflow in {what} ({value} does not fit {ty:?})"
        ));
    }
    Ok(Value::new(ty.wrap(value), ty))
}

fn apply(op: &str, lhs: Value, rhs: Value) -> Result<Value, String> {
    if op == "<<" || op == ">>" {
        // The result has the promoted type of the left operand alone (C11 6.5.7).
        let (l, r) = (lhs.promoted(), rhs.promoted());
        if r.value < 0 || r.value >= i128::from(l.ty.bits()) {
            return Err(format!(
                "shift by {} of a {}-bit value",
                r.value,
                l.ty.bits()
            ));
        }
        let n = u32::try_from(r.value).map_err(|e| e.to_string())?;
        return if op == "<<" {
            if l.ty.signed && l.value < 0 {
                return Err(format!("left shift of the negative value {}", l.value));
            }
            checked(l.ty, l.value << n, "left shift")
        } else {
            Ok(Value::new(l.value >> n, l.ty))
        };
    }
    match op {
        "&&" => return Ok(Value::boolean(lhs.value != 0 && rhs.value != 0)),
        "||" => return Ok(Value::boolean(lhs.value != 0 || rhs.value != 0)),
        _ => {}
    }
    let ty = CType::common(lhs.ty, rhs.ty);
    let (a, b) = (lhs.convert(ty).value, rhs.convert(ty).value);
    match op {
        "+" => checked(ty, a + b, "addition"),
        "-" => checked(ty, a - b, "subtraction"),
        "*" => checked(ty, a * b, "multiplication"),
        "/" | "%" if b == 0 => Err("division by zero".to_string()),
        // i128 `/` and `%` truncate toward zero, as C99 does.
        "/" => checked(ty, a / b, "division"),
        "%" => checked(ty, a % b, "remainder"),
        "&" => Ok(Value::new(ty.wrap(a & b), ty)),
        "^" => Ok(Value::new(ty.wrap(a ^ b), ty)),
        "|" => Ok(Value::new(ty.wrap(a | b), ty)),
        "==" => Ok(Value::boolean(a == b)),
        "!=" => Ok(Value::boolean(a != b)),
        "<" => Ok(Value::boolean(a < b)),
        ">" => Ok(Value::boolean(a > b)),
        "<=" => Ok(Value::boolean(a <= b)),
        ">=" => Ok(Value::boolean(a >= b)),
        _ => Err(format!("unsupported operator `{op}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct TestEnv(HashMap<&'static str, &'static str>);

    impl Env for TestEnv {
        fn macro_body(&self, name: &str) -> Option<&str> {
            self.0.get(name).copied()
        }
        fn int_type(&self, name: &str) -> Option<CType> {
            match name {
                "cl_bitfield" | "cl_ulong" => Some(CType::ULONG),
                "cl_uint" => Some(CType::UINT),
                "cl_int" => Some(CType::INT),
                "cl_uchar" => Some(CType::new(1, false)),
                _ => None,
            }
        }
    }

    fn env() -> TestEnv {
        TestEnv(HashMap::from([
            ("CL_TRUE", "1"),
            ("CL_BLOCKING", "CL_TRUE"),
            ("CHAIN", "(CL_BLOCKING << 4)"),
            ("SUM", "1 + 2"),
            ("SELF", "SELF + 1"),
            ("PING", "PONG"),
            ("PONG", "PING"),
        ]))
    }

    fn value(expr: &str) -> i128 {
        eval(expr, &env())
            .unwrap_or_else(|e| panic!("`{expr}`: {e}"))
            .value
    }

    fn typed(expr: &str) -> Value {
        eval(expr, &env()).unwrap_or_else(|e| panic!("`{expr}`: {e}"))
    }

    fn error(expr: &str) -> String {
        match eval(expr, &env()) {
            Ok(v) => panic!("`{expr}` should not evaluate, got {v:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn integer_literals_and_suffixes() {
        assert_eq!(value("0"), 0);
        assert_eq!(value("42"), 42);
        assert_eq!(value("0x10B0"), 0x10B0);
        assert_eq!(value("0X1f"), 31);
        assert_eq!(value("017"), 15);
        assert_eq!(value("0u"), 0);
        assert_eq!(typed("1u").ty, CType::UINT);
        assert_eq!(typed("1l").ty, CType::LONG);
        assert_eq!(typed("1UL").ty, CType::ULONG);
        assert_eq!(typed("1ull").ty, CType::ULONG);
        assert_eq!(typed("1LL").ty, CType::LONG);
        assert_eq!(typed("1lu").ty, CType::ULONG);
    }

    #[test]
    fn literal_types_follow_c_rules() {
        assert_eq!(typed("2147483647").ty, CType::INT);
        // A decimal literal never becomes unsigned; a hex one does.
        assert_eq!(typed("2147483648").ty, CType::LONG);
        assert_eq!(typed("0x80000000").ty, CType::UINT);
        assert_eq!(typed("0xFFFFFFFF"), Value::new(0xFFFF_FFFF, CType::UINT));
        assert_eq!(typed("0x100000000").ty, CType::LONG);
        assert_eq!(typed("0xFFFFFFFFFFFFFFFF").ty, CType::ULONG);
        assert!(error("18446744073709551616").contains("does not fit"));
    }

    #[test]
    fn negative_numbers() {
        assert_eq!(value("-1"), -1);
        assert_eq!(value("(-30)"), -30);
        assert_eq!(value("-(1001)"), -1001);
        assert_eq!(value("- -5"), 5);
        // Unsigned negation wraps.
        assert_eq!(value("-1u"), 0xFFFF_FFFF);
    }

    #[test]
    fn shifts_and_precedence() {
        assert_eq!(value("(1 << 0)"), 1);
        assert_eq!(value("(1 << 9)"), 512);
        assert_eq!(value("1 << 2 + 1"), 8);
        assert_eq!(value("1 + 2 * 3"), 7);
        assert_eq!(value("(1 + 2) * 3"), 9);
        assert_eq!(value("((1 << 10) - 1)"), 1023);
        assert_eq!(value("0x0F | 0x30 & 0x20"), 0x2F);
        assert_eq!(value("7 / 2"), 3);
        assert_eq!(value("-7 / 2"), -3);
        assert_eq!(value("-7 % 2"), -1);
        assert_eq!(value("-8 >> 1"), -4);
        assert_eq!(value("1 == 1 && 2 > 1"), 1);
        assert_eq!(value("!0 + !5"), 1);
    }

    #[test]
    fn casts() {
        assert_eq!(typed("((cl_bitfield)1 << 3)"), Value::new(8, CType::ULONG));
        // The cast binds tighter than the shift, so 1 << 40 happens in 64 bits.
        assert_eq!(value("((cl_bitfield)1 << 40)"), 1 << 40);
        assert_eq!(value("(cl_uint)-1"), 0xFFFF_FFFF);
        assert_eq!(value("(cl_int)0xFFFFFFFF"), -1);
        assert_eq!(value("(cl_uchar)0x1FF"), 0xFF);
        assert_eq!(value("(unsigned long)-1"), 0xFFFF_FFFF_FFFF_FFFF);
        assert_eq!(value("(int)0x80000000u"), -0x8000_0000);
        // `(CL_TRUE)` is a parenthesised macro, not a cast.
        assert_eq!(value("(CL_TRUE) + 1"), 2);
    }

    #[test]
    fn unsigned_arithmetic_and_conversions() {
        assert_eq!(value("~0"), -1);
        assert_eq!(value("~0u"), 0xFFFF_FFFF);
        assert_eq!(value("~0ul"), 0xFFFF_FFFF_FFFF_FFFF);
        assert_eq!(value("0u - 1"), 0xFFFF_FFFF);
        // -1 is converted to unsigned int before the comparison.
        assert_eq!(value("-1 < 0u"), 0);
        // ... but long can hold every unsigned int, so here it is not.
        assert_eq!(value("-1L < 0u"), 1);
        assert_eq!(typed("1u + 1L").ty, CType::LONG);
        assert_eq!(typed("1ul + 1L").ty, CType::ULONG);
    }

    #[test]
    fn macro_references() {
        assert_eq!(value("CL_BLOCKING"), 1);
        assert_eq!(value("CHAIN"), 16);
        // Textual expansion, as the preprocessor does it: SUM * 2 is 1 + 2 * 2.
        assert_eq!(value("SUM * 2"), 5);
        assert!(error("SELF").contains("SELF"));
        assert!(error("PING").contains("not a macro with a value"));
    }

    #[test]
    fn rejects_what_is_not_an_integer_constant() {
        assert!(error("1.0f").contains("floating"));
        assert!(error("340282346638528859811704183484516925440.0f").contains("floating"));
        assert!(error("1e5").contains("floating"));
        assert!(error("UNKNOWN_MACRO").contains("UNKNOWN_MACRO"));
        assert!(error("").contains("empty"));
        assert!(error("(1 << 2").contains("expected `)`"));
        assert!(error("1 2").contains("unexpected"));
        assert!(error("1 / 0").contains("division by zero"));
        assert!(error("\"str\"").contains("unsupported character"));
        assert!(error("0x").contains("no digits"));
        assert!(error("12q").contains("invalid suffix"));
        assert!(error("09").contains("invalid suffix"));
    }

    #[test]
    fn rejects_undefined_behaviour() {
        assert!(error("1 << 31").contains("overflow"));
        assert!(error("2147483647 + 1").contains("overflow"));
        assert!(error("-1 << 1").contains("negative"));
        assert!(error("1 << 32").contains("shift by 32"));
        assert!(error("1 << -1").contains("shift by -1"));
        assert_eq!(value("1u << 31"), 0x8000_0000);
        assert_eq!(value("1L << 62"), 1 << 62);
    }
}
