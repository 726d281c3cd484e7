//! `#if` expressions (C99 6.10.1): integer constant expressions evaluated in `intmax_t`
//! and `uintmax_t` (both 64 bits here), with C's usual arithmetic conversions.
//!
//! Errors (division by zero, garbage) are reported and make the condition false; signed
//! overflow wraps with a warning, as in clang. Operands that are not evaluated (the right of
//! `0 &&`, the untaken arm of `?:`) report neither. Nesting is capped so that a line of ten
//! thousand `(` cannot exhaust the stack.

use super::PpToken;
use crate::frontend::diag::Diagnostics;
use crate::frontend::source::Span;
use crate::frontend::token::{Punct, Token, TokenKind};

/// Deepest nesting of parentheses, unary operators and `?:` arms.
const MAX_NESTING: u32 = 128;

/// A value: `intmax_t` or `uintmax_t`, as two's complement bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Value {
    bits: u64,
    unsigned: bool,
}

impl Value {
    fn signed(v: i64) -> Value {
        Value {
            bits: v as u64,
            unsigned: false,
        }
    }

    /// The `int` results of comparisons and logical operators.
    fn truth(b: bool) -> Value {
        Value::signed(i64::from(b))
    }

    fn is_true(self) -> bool {
        self.bits != 0
    }

    fn as_i64(self) -> i64 {
        self.bits as i64
    }
}

/// Evaluates the tokens of a `#if` line (macros already expanded, `defined` already
/// replaced). `end` is the end of the line, for "expected value" at the end. `None` after
/// an error.
pub(super) fn evaluate(tokens: &[PpToken], end: Span, diags: &mut Diagnostics) -> Option<bool> {
    let mut e = Evaluator {
        tokens,
        pos: 0,
        end,
        diags,
        depth: 0,
    };
    let value = e.expression(true)?;
    if let Some(extra) = e.tokens.get(e.pos) {
        let at = extra.tok.site;
        e.diags.error(
            at,
            "token is not a valid binary operator in a preprocessor subexpression",
        );
        return None;
    }
    Some(value.is_true())
}

struct Evaluator<'a> {
    tokens: &'a [PpToken],
    pos: usize,
    end: Span,
    diags: &'a mut Diagnostics,
    depth: u32,
}

/// A grammar rule's function, for the left-associative binary levels.
type Rule<'a> = fn(&mut Evaluator<'a>, bool) -> Option<Value>;

impl<'a> Evaluator<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    /// Takes the next token if it is one of `ops`.
    fn take_one_of(&mut self, ops: &[Punct]) -> Option<(Punct, Span)> {
        let t = self.peek()?;
        let TokenKind::Punct(p) = t.kind else {
            return None;
        };
        if ops.contains(&p) {
            self.pos += 1;
            Some((p, t.site))
        } else {
            None
        }
    }

    /// Where the next token is, or the end of the line.
    fn here(&self) -> Span {
        self.peek().map_or(self.end, |t| t.site)
    }

    /// Runs `rule` one nesting level deeper, refusing past the cap.
    fn nested(&mut self, rule: impl FnOnce(&mut Self) -> Option<Value>) -> Option<Value> {
        if self.depth >= MAX_NESTING {
            let at = self.here();
            self.diags.error(
                at,
                format!(
                    "preprocessor expression nested too deeply (more than {MAX_NESTING} levels)"
                ),
            );
            return None;
        }
        self.depth += 1;
        let v = rule(self);
        self.depth -= 1;
        v
    }

    fn overflow(&mut self, live: bool, at: Span) {
        if live {
            self.diags
                .warning(at, "integer overflow in preprocessor expression");
        }
    }

    /// expression: conditional-expression { `,` conditional-expression }
    fn expression(&mut self, live: bool) -> Option<Value> {
        let mut v = self.conditional_expression(live)?;
        while self.take_one_of(&[Punct::Comma]).is_some() {
            v = self.conditional_expression(live)?;
        }
        Some(v)
    }

    /// conditional-expression: logical-OR-expression [ `?` expression `:` conditional-expression ]
    fn conditional_expression(&mut self, live: bool) -> Option<Value> {
        let cond = self.logical_or_expression(live)?;
        if self.take_one_of(&[Punct::Question]).is_none() {
            return Some(cond);
        }
        let c = cond.is_true();
        let then = self.nested(|s| s.expression(live && c))?;
        if self.take_one_of(&[Punct::Colon]).is_none() {
            let at = self.here();
            self.diags
                .error(at, "expected ':' in preprocessor expression");
            return None;
        }
        let otherwise = self.nested(|s| s.conditional_expression(live && !c))?;
        // The usual arithmetic conversions apply to both arms, taken or not.
        let unsigned = then.unsigned || otherwise.unsigned;
        Some(Value {
            bits: if c { then.bits } else { otherwise.bits },
            unsigned,
        })
    }

    /// logical-OR-expression: logical-AND-expression { `||` logical-AND-expression }
    fn logical_or_expression(&mut self, live: bool) -> Option<Value> {
        let mut lhs = self.logical_and_expression(live)?;
        while self.take_one_of(&[Punct::PipePipe]).is_some() {
            let rhs = self.logical_and_expression(live && !lhs.is_true())?;
            lhs = Value::truth(lhs.is_true() || rhs.is_true());
        }
        Some(lhs)
    }

    /// logical-AND-expression: inclusive-OR-expression { `&&` inclusive-OR-expression }
    fn logical_and_expression(&mut self, live: bool) -> Option<Value> {
        let mut lhs = self.inclusive_or_expression(live)?;
        while self.take_one_of(&[Punct::AmpAmp]).is_some() {
            let rhs = self.inclusive_or_expression(live && lhs.is_true())?;
            lhs = Value::truth(lhs.is_true() && rhs.is_true());
        }
        Some(lhs)
    }

    /// inclusive-OR-expression: exclusive-OR-expression { `|` exclusive-OR-expression }
    fn inclusive_or_expression(&mut self, live: bool) -> Option<Value> {
        self.left_associative(live, &[Punct::Pipe], Self::exclusive_or_expression)
    }

    /// exclusive-OR-expression: AND-expression { `^` AND-expression }
    fn exclusive_or_expression(&mut self, live: bool) -> Option<Value> {
        self.left_associative(live, &[Punct::Caret], Self::and_expression)
    }

    /// AND-expression: equality-expression { `&` equality-expression }
    fn and_expression(&mut self, live: bool) -> Option<Value> {
        self.left_associative(live, &[Punct::Amp], Self::equality_expression)
    }

    /// equality-expression: relational-expression { ( `==` | `!=` ) relational-expression }
    fn equality_expression(&mut self, live: bool) -> Option<Value> {
        self.left_associative(live, &[Punct::EqEq, Punct::Ne], Self::relational_expression)
    }

    /// relational-expression: shift-expression { ( `<` | `>` | `<=` | `>=` ) shift-expression }
    fn relational_expression(&mut self, live: bool) -> Option<Value> {
        let ops = [Punct::Lt, Punct::Gt, Punct::Le, Punct::Ge];
        self.left_associative(live, &ops, Self::shift_expression)
    }

    /// shift-expression: additive-expression { ( `<<` | `>>` ) additive-expression }
    fn shift_expression(&mut self, live: bool) -> Option<Value> {
        self.left_associative(live, &[Punct::Shl, Punct::Shr], Self::additive_expression)
    }

    /// additive-expression: multiplicative-expression { ( `+` | `-` ) multiplicative-expression }
    fn additive_expression(&mut self, live: bool) -> Option<Value> {
        self.left_associative(
            live,
            &[Punct::Plus, Punct::Minus],
            Self::multiplicative_expression,
        )
    }

    /// multiplicative-expression: unary-expression { ( `*` | `/` | `%` ) unary-expression }
    fn multiplicative_expression(&mut self, live: bool) -> Option<Value> {
        let ops = [Punct::Star, Punct::Slash, Punct::Percent];
        self.left_associative(live, &ops, Self::unary_expression)
    }

    /// One left-associative level: `operand { op operand }`.
    fn left_associative(&mut self, live: bool, ops: &[Punct], operand: Rule<'a>) -> Option<Value> {
        let mut lhs = operand(self, live)?;
        while let Some((op, at)) = self.take_one_of(ops) {
            let rhs = operand(self, live)?;
            lhs = self.binary(op, at, lhs, rhs, live)?;
        }
        Some(lhs)
    }

    /// A binary operator's value (C99 6.5.5-6.5.12 in `intmax_t`/`uintmax_t`).
    fn binary(&mut self, op: Punct, at: Span, l: Value, r: Value, live: bool) -> Option<Value> {
        // Shifts take the left operand's type; the others convert both operands to a
        // common type, unsigned if either is.
        if matches!(op, Punct::Shl | Punct::Shr) {
            return Some(self.shift(op, at, l, r, live));
        }
        let unsigned = l.unsigned || r.unsigned;
        let (a, b) = (l.bits, r.bits);
        let (sa, sb) = (a as i64, b as i64);
        let bits = match op {
            Punct::Star if unsigned => a.wrapping_mul(b),
            Punct::Plus if unsigned => a.wrapping_add(b),
            Punct::Minus if unsigned => a.wrapping_sub(b),
            Punct::Star | Punct::Plus | Punct::Minus => {
                let checked = match op {
                    Punct::Star => sa.checked_mul(sb),
                    Punct::Plus => sa.checked_add(sb),
                    _ => sa.checked_sub(sb),
                };
                let wrapped = match op {
                    Punct::Star => sa.wrapping_mul(sb),
                    Punct::Plus => sa.wrapping_add(sb),
                    _ => sa.wrapping_sub(sb),
                };
                if checked.is_none() {
                    self.overflow(live, at);
                }
                wrapped as u64
            }
            Punct::Slash | Punct::Percent => {
                if b == 0 {
                    if !live {
                        return Some(Value { bits: 0, unsigned });
                    }
                    let what = if op == Punct::Slash {
                        "division"
                    } else {
                        "remainder"
                    };
                    self.diags
                        .error(at, format!("{what} by zero in preprocessor expression"));
                    return None;
                }
                match (op, unsigned) {
                    (Punct::Slash, true) => a / b,
                    (_, true) => a % b,
                    (Punct::Slash, false) => {
                        if sa.checked_div(sb).is_none() {
                            self.overflow(live, at);
                        }
                        sa.wrapping_div(sb) as u64
                    }
                    (_, false) => sa.wrapping_rem(sb) as u64,
                }
            }
            Punct::Lt | Punct::Gt | Punct::Le | Punct::Ge | Punct::EqEq | Punct::Ne => {
                let ordering = if unsigned { a.cmp(&b) } else { sa.cmp(&sb) };
                let truth = match op {
                    Punct::Lt => ordering.is_lt(),
                    Punct::Gt => ordering.is_gt(),
                    Punct::Le => ordering.is_le(),
                    Punct::Ge => ordering.is_ge(),
                    Punct::EqEq => ordering.is_eq(),
                    _ => ordering.is_ne(),
                };
                return Some(Value::truth(truth));
            }
            Punct::Amp => a & b,
            Punct::Caret => a ^ b,
            _ => a | b,
        };
        Some(Value { bits, unsigned })
    }

    /// `<<` and `>>`: a shift by 64 or more (or by a negative amount) overflows, as do
    /// bits shifted out of a left shift; the result then is clang's.
    fn shift(&mut self, op: Punct, at: Span, l: Value, r: Value, live: bool) -> Value {
        let amount = r.bits;
        let bits = if op == Punct::Shl {
            if amount >= 64 {
                self.overflow(live, at);
                0
            } else {
                let shifted = l.bits << amount;
                let back = if l.unsigned {
                    shifted >> amount
                } else {
                    ((shifted as i64) >> amount) as u64
                };
                if back != l.bits {
                    self.overflow(live, at);
                }
                shifted
            }
        } else {
            let amount = if amount >= 64 {
                self.overflow(live, at);
                63
            } else {
                amount
            };
            if l.unsigned {
                l.bits >> amount
            } else {
                (l.as_i64() >> amount) as u64
            }
        };
        Value {
            bits,
            unsigned: l.unsigned,
        }
    }

    /// unary-expression: primary-expression | unary-operator unary-expression
    ///
    /// unary-operator: one of `+ - ~ !`
    fn unary_expression(&mut self, live: bool) -> Option<Value> {
        let Some((op, at)) =
            self.take_one_of(&[Punct::Plus, Punct::Minus, Punct::Tilde, Punct::Bang])
        else {
            return self.primary_expression(live);
        };
        let v = self.nested(|s| s.unary_expression(live))?;
        Some(match op {
            Punct::Plus => v,
            Punct::Minus => {
                if !v.unsigned && v.as_i64() == i64::MIN {
                    self.overflow(live, at);
                }
                Value {
                    bits: v.bits.wrapping_neg(),
                    unsigned: v.unsigned,
                }
            }
            Punct::Tilde => Value {
                bits: !v.bits,
                unsigned: v.unsigned,
            },
            _ => Value::truth(!v.is_true()),
        })
    }

    /// primary-expression: integer-constant | character-constant | identifier | `(` expression `)`
    ///
    /// Identifiers left after macro expansion are 0 (C99 6.10.1p4), except OpenCL C's `true`
    /// and `false` keywords, which are 1 and 0 (as in clang).
    fn primary_expression(&mut self, live: bool) -> Option<Value> {
        let Some(t) = self.peek() else {
            self.diags.error(self.end, "expected value in expression");
            return None;
        };
        match t.kind {
            TokenKind::Number => {
                self.pos += 1;
                self.integer_constant(t)
            }
            TokenKind::Char => {
                self.pos += 1;
                self.character_constant(t)
            }
            TokenKind::Ident => {
                self.pos += 1;
                Some(Value::truth(&*t.text == "true"))
            }
            TokenKind::Punct(Punct::LParen) => {
                self.pos += 1;
                let v = self.nested(|s| s.expression(live))?;
                if self.take_one_of(&[Punct::RParen]).is_none() {
                    let at = self.here();
                    self.diags
                        .error(at, "expected ')' in preprocessor expression");
                    self.diags.note(t.site, "to match this '('");
                    return None;
                }
                Some(v)
            }
            _ => {
                self.diags.error(
                    t.site,
                    "invalid token at start of a preprocessor expression",
                );
                None
            }
        }
    }

    /// integer-constant: decimal-constant integer-suffix? | octal-constant integer-suffix?
    ///                 | hexadecimal-constant integer-suffix?   (C99 6.4.4.1)
    ///
    /// Unsuffixed constants are signed when they fit in `intmax_t`, else unsigned.
    fn integer_constant(&mut self, t: &Token) -> Option<Value> {
        let text = &*t.text;
        let lower = text.to_ascii_lowercase();
        let (radix, prefix) = if lower.starts_with("0x") {
            (16, 2)
        } else if text.starts_with('0') {
            (8, 1)
        } else {
            (10, 0)
        };
        let float = if radix == 16 {
            lower.contains(['.', 'p'])
        } else {
            lower.contains(['.', 'e'])
        };
        if float {
            self.diags
                .error(t.site, "floating point literal in preprocessor expression");
            return None;
        }
        let body = text.get(prefix..).unwrap_or_default();
        let digits_end = body
            .find(|c: char| !c.is_digit(radix))
            .unwrap_or(body.len());
        let (digits, suffix) = body.split_at(digits_end);
        if radix == 8 && suffix.starts_with(|c: char| c.is_ascii_digit()) {
            let bad = suffix.chars().next().unwrap_or('8');
            self.diags
                .error(t.site, format!("invalid digit '{bad}' in octal constant"));
            return None;
        }
        let suffix_ok = matches!(
            suffix.to_ascii_lowercase().as_str(),
            "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu"
        ) && !suffix.contains("lL")
            && !suffix.contains("Ll");
        if (radix == 16 && digits.is_empty()) || !suffix_ok {
            let shown = if radix == 16 && digits.is_empty() {
                &text[1..]
            } else {
                suffix
            };
            self.diags.error(
                t.site,
                format!("invalid suffix '{shown}' on integer constant"),
            );
            return None;
        }
        let value = if digits.is_empty() {
            Ok(0)
        } else {
            u64::from_str_radix(digits, radix)
        };
        let Ok(value) = value else {
            self.diags.error(
                t.site,
                "integer literal is too large to be represented in any integer type",
            );
            return None;
        };
        let mut unsigned = suffix.contains(['u', 'U']);
        if !unsigned && value > i64::MAX as u64 {
            if radix == 10 {
                self.diags.warning(
                    t.site,
                    "integer literal is too large to be represented in a signed integer type, interpreting as unsigned",
                );
            }
            unsigned = true;
        }
        Some(Value {
            bits: value,
            unsigned,
        })
    }

    /// character-constant: `'` c-char-sequence `'`   (C99 6.4.4.4)
    ///
    /// `char` is signed in OpenCL C, so `'\xff'` is -1. A multi-character constant is its
    /// bytes big-end first in an `int` (with a warning), as in clang and GCC.
    fn character_constant(&mut self, t: &Token) -> Option<Value> {
        let text = &*t.text;
        let Some(inner) = text
            .strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .filter(|_| text.len() >= 2)
        else {
            // Unterminated: the lexer has said so.
            return None;
        };
        let mut bytes: Vec<u8> = Vec::new();
        let mut it = inner.bytes().peekable();
        while let Some(b) = it.next() {
            if b != b'\\' {
                bytes.push(b);
                continue;
            }
            let Some(e) = it.next() else { break };
            let value: u32 = match e {
                b'n' => 10,
                b't' => 9,
                b'v' => 11,
                b'b' => 8,
                b'r' => 13,
                b'f' => 12,
                b'a' => 7,
                b'e' => 27,
                b'\\' | b'\'' | b'"' | b'?' => u32::from(e),
                b'0'..=b'7' => {
                    let mut v = u32::from(e - b'0');
                    for _ in 0..2 {
                        match it.peek() {
                            Some(&d @ b'0'..=b'7') => {
                                v = v * 8 + u32::from(d - b'0');
                                it.next();
                            }
                            _ => break,
                        }
                    }
                    v
                }
                b'x' => {
                    let mut v: u32 = 0;
                    let mut any = false;
                    while let Some(d) = it.peek().and_then(|&d| (d as char).to_digit(16)) {
                        v = v.saturating_mul(16).saturating_add(d);
                        any = true;
                        it.next();
                    }
                    if !any {
                        self.diags
                            .error(t.site, "\\x used with no following hex digits");
                        return None;
                    }
                    v
                }
                other => {
                    self.diags.warning(
                        t.site,
                        format!("unknown escape sequence '\\{}'", other as char),
                    );
                    u32::from(other)
                }
            };
            if value > 0xff {
                self.diags.error(t.site, "escape sequence out of range");
                return None;
            }
            bytes.push(value as u8);
        }
        match bytes.as_slice() {
            [] => {
                self.diags.error(t.site, "empty character constant");
                None
            }
            [one] => Some(Value::signed(i64::from(*one as i8))),
            many => {
                self.diags
                    .warning(t.site, "multi-character character constant");
                let v = many.iter().fold(0u32, |v, &b| (v << 8) | u32::from(b));
                Some(Value::signed(i64::from(v as i32)))
            }
        }
    }
}
