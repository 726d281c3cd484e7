//! `printf` (OpenCL 1.2 section 6.12.13): the formatter and the builtin compiled kernels call.
//!
//! A kernel's `printf(format, ...)` compiles to one call of [`clift_printf`] with the
//! launch's [`PrintfBuffer`], the format string (a literal in `__constant` memory) and an
//! array of [`PrintfArg`]s, one per argument after the format, each carrying its kind,
//! element size and lanes. Formatting happens here, at run time, so the compiler does not
//! have to know the format rules; the call appends its whole text to the buffer under one
//! lock, so concurrent work-items never interleave inside one call's output, and the runtime
//! prints the buffer when the command completes (6.12.13.1).
//!
//! The rules are C99's `fprintf` (7.19.6.1) with OpenCL's changes (6.12.13.2, 6.12.13.3),
//! and the text is byte for byte what glibc's `printf` prints for the corresponding C
//! arguments (the tests compare with the host's `snprintf`):
//!
//! - flags `-+ #0`, a decimal field width and precision (no `*`: the format is a constant
//!   and OpenCL does not list it), conversions `d i o u x X f F e E g G a A c s p` and `%%`
//!   (only as the complete specification);
//! - length modifiers `hh`, `h` and `l`; `hl` only after a vector specifier; `ll`, `L`,
//!   `j`, `z`, `t` are reserved, so invalid;
//! - the vector specifier `vN` (N = 2, 3, 4, 8, 16) between the precision and the length
//!   modifier, which is then required: `hh` (char lanes), `h` (short or half lanes), `hl`
//!   (int or float lanes), `l` (long or double lanes); each lane is formatted with the whole
//!   specification and lanes are separated by `,`.
//!
//! Where C leaves the result undefined, clift decides as follows:
//!
//! - an invalid specification, too few arguments, or an argument whose kind (integer,
//!   floating-point, pointer) or lane count does not fit its conversion makes the whole call
//!   print nothing and return -1 (6.12.13 says the call returns -1 when it fails);
//! - a vector argument must have exactly the element size of its length modifier (the
//!   specification's example: `%#v2hx` of a `uint2` is invalid); a scalar integer argument
//!   of any size is converted to the modifier's type (`int` without one), as C does for
//!   `hh` and `h` and as a 64-bit register read as `int` would be;
//! - `%lf` (and `l` with the other floating conversions) is accepted for scalars, meaning
//!   nothing, as in C99;
//! - flags without meaning for a conversion (`#` with `d`, `+` with `u`, `0` with `s`) are
//!   ignored as glibc ignores them; `%p` is printed as glibc does: `(nil)` for a null
//!   pointer, otherwise like `%#lx` (with the `+`, space, `0` flags and the precision
//!   applied); `%s` of a null pointer prints `(null)` (or nothing when the precision is
//!   below 6), as glibc does;
//! - floating-point values are formatted as `double` (a `float` converts exactly, and so do
//!   `half` lanes, which the compiler passes widened to `float`), with `-nan` for a NaN whose
//!   sign bit is set, as glibc prints it;
//! - glibc's one departure from C99 is kept: `%#g` of a value with P integer digits that
//!   rounds up to 10^P prints no fraction digits (`%#.6g` of 999999.5 is `1.e+06`).
//!
//! Decimal conversions are exact: the value's full decimal expansion (at most 767
//! significant digits for a `double`) is computed with a small big-integer routine and
//! rounded once, half to even, as glibc does in the default rounding mode.

use std::ffi::CStr;
use std::sync::Mutex;

/// One printf argument as the compiled kernel passes it. `#[repr(C)]`, 144 bytes: the
/// compiler builds an array of these on the stack and passes its address, so the layout is
/// part of the compiler's ABI with this crate.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintfArg {
    /// 0: signed integer, 1: unsigned integer, 2: float (each lane's f32 bits in the low 32
    /// bits of its u64), 3: double (f64 bits), 4: pointer (an address; for %s a
    /// NUL-terminated string; for %p printed as an address).
    pub kind: u32,
    /// Bytes of one element (1, 2, 4, 8) — for integers, the C type's size (the value is
    /// sign-/zero-extended to 64 bits in `lanes`).
    pub size: u32,
    /// Number of lanes: 1 for scalars, 2/3/4/8/16 for vectors.
    pub count: u32,
    pub _pad: u32,
    pub lanes: [u64; 16],
}

const _: () = assert!(size_of::<PrintfArg>() == 144);

/// [`PrintfArg::kind`] of a signed integer.
const KIND_SIGNED: u32 = 0;
/// [`PrintfArg::kind`] of an unsigned integer.
const KIND_UNSIGNED: u32 = 1;
/// [`PrintfArg::kind`] of a `float` (or `half`, widened) value.
const KIND_FLOAT: u32 = 2;
/// [`PrintfArg::kind`] of a `double` value.
const KIND_DOUBLE: u32 = 3;
/// [`PrintfArg::kind`] of a pointer.
const KIND_POINTER: u32 = 4;

/// A launch's printf output: appended to by every work-item (thread-safe), printed when the
/// command completes. Capacity = `CL_DEVICE_PRINTF_BUFFER_SIZE`; output beyond it is
/// dropped and the call returns -1.
pub struct PrintfBuffer {
    /// The text so far. A plain mutex: each call holds it only to append one finished text.
    text: Mutex<Vec<u8>>,
    /// The most bytes `text` may hold.
    capacity: usize,
}

impl PrintfBuffer {
    pub fn new(capacity: usize) -> PrintfBuffer {
        PrintfBuffer {
            text: Mutex::new(Vec::new()),
            capacity,
        }
    }

    /// The text written so far, and clears it.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.lock())
    }

    /// Appends `bytes` whole, or nothing (returning false) if they do not fit.
    fn append(&self, bytes: &[u8]) -> bool {
        let mut text = self.lock();
        if bytes.len() > self.capacity.saturating_sub(text.len()) {
            return false;
        }
        text.extend_from_slice(bytes);
        true
    }

    /// The text, even after a panic elsewhere poisoned the lock: appends are single
    /// `extend_from_slice` calls, so the text is never left half-written.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.text.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The builtin the compiled code calls: formats `format` (NUL-terminated, in __constant
/// memory) with `args[..count]` and appends the text to `buffer` atomically (one call's text
/// is never interleaved with another's). Returns 0 on success, -1 if the format is invalid
/// (per OpenCL 6.12.13) or the buffer is full.
///
/// # Safety
///
/// `buffer` points to a live [`PrintfBuffer`], `format` to a NUL-terminated string, `args`
/// to `count` readable [`PrintfArg`]s (it may dangle when `count` is 0), and every pointer
/// argument that a `%s` conversion consumes points to a NUL-terminated string (or to at
/// least as many bytes as the precision), or is null.
pub unsafe extern "C" fn clift_printf(
    buffer: *const PrintfBuffer,
    format: *const u8,
    args: *const PrintfArg,
    count: u32,
) -> i32 {
    if buffer.is_null() || format.is_null() || (args.is_null() && count > 0) {
        return -1;
    }
    // SAFETY: the caller guarantees `buffer` points to a live buffer (non-null, checked).
    let buffer = unsafe { &*buffer };
    // SAFETY: the caller guarantees `format` is a NUL-terminated string (non-null, checked).
    let format = unsafe { CStr::from_ptr(format.cast()) }.to_bytes();
    let args = if count == 0 {
        &[][..]
    } else {
        // SAFETY: the caller guarantees `count` readable arguments at `args` (non-null).
        unsafe { std::slice::from_raw_parts(args, count as usize) }
    };
    // Output longer than the whole buffer can never fit: stop formatting it early, so a
    // huge field width costs no more than the buffer's size.
    match format_limited(format, args, buffer.capacity) {
        Ok(text) if buffer.append(&text) => 0,
        _ => -1,
    }
}

/// For the JIT's symbol table.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![("clift_printf", clift_printf as *const u8)]
}

/// The pure formatter (used by clift_printf and by tests): the text, or None for an invalid
/// format or argument mismatch.
///
/// `format` ends at its first NUL byte, if it has one.
///
/// # Safety
///
/// Every pointer argument (kind 4) that a `%s` conversion consumes points to a
/// NUL-terminated string (or to at least as many bytes as the precision), or is null: it is
/// read as one, as in [`clift_printf`].
pub unsafe fn format(format: &[u8], args: &[PrintfArg]) -> Option<Vec<u8>> {
    format_limited(format, args, usize::MAX).ok()
}

/// Why a call prints nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Error {
    /// The format is invalid or does not match the arguments.
    Invalid,
    /// The text would be longer than the limit.
    Full,
}

/// [`format`], failing with [`Error::Full`] as soon as the text exceeds `limit` bytes.
fn format_limited(format: &[u8], args: &[PrintfArg], limit: usize) -> Result<Vec<u8>, Error> {
    let format = match format.iter().position(|&b| b == 0) {
        Some(end) => &format[..end],
        None => format,
    };
    let mut out = Out {
        text: Vec::new(),
        limit,
    };
    let mut args = args.iter();
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            let end = format[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(format.len(), |p| i + p);
            out.push(&format[i..end])?;
            i = end;
            continue;
        }
        if format.get(i + 1) == Some(&b'%') {
            out.push(b"%")?;
            i += 2;
            continue;
        }
        let (spec, next) = parse(format, i + 1)?;
        i = next;
        let arg = args.next().ok_or(Error::Invalid)?;
        convert(&mut out, &spec, arg)?;
    }
    Ok(out.text)
}

/// The text being built, bounded by a limit.
struct Out {
    text: Vec<u8>,
    limit: usize,
}

impl Out {
    fn push(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.reserve(bytes.len())?;
        self.text.extend_from_slice(bytes);
        Ok(())
    }

    fn fill(&mut self, byte: u8, n: usize) -> Result<(), Error> {
        self.reserve(n)?;
        self.text.resize(self.text.len() + n, byte);
        Ok(())
    }

    /// Fails if `n` more bytes would exceed the limit.
    fn reserve(&self, n: usize) -> Result<(), Error> {
        if n > self.limit.saturating_sub(self.text.len()) {
            Err(Error::Full)
        } else {
            Ok(())
        }
    }

    /// One field: `sign`, `prefix` (`0x`) and `body`, padded to the field width with
    /// spaces (left or right) or, when `zeros`, with zeros after the sign and prefix.
    fn field(
        &mut self,
        spec: &Spec,
        sign: &[u8],
        prefix: &[u8],
        body: &[u8],
        zeros: bool,
    ) -> Result<(), Error> {
        let pad = spec
            .width
            .saturating_sub(sign.len() + prefix.len() + body.len());
        if spec.minus {
            self.push(sign)?;
            self.push(prefix)?;
            self.push(body)?;
            self.fill(b' ', pad)
        } else if zeros {
            self.push(sign)?;
            self.push(prefix)?;
            self.fill(b'0', pad)?;
            self.push(body)
        } else {
            self.fill(b' ', pad)?;
            self.push(sign)?;
            self.push(prefix)?;
            self.push(body)
        }
    }
}

/// A length modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Length {
    None,
    /// `hh`: char.
    Char,
    /// `h`: short (or half lanes).
    Short,
    /// `hl`: int or float lanes (vectors only).
    Int,
    /// `l`: long (or double lanes).
    Long,
}

impl Length {
    /// The bits of the integer type the modifier names (`int` for none).
    fn bits(self) -> u32 {
        match self {
            Length::Char => 8,
            Length::Short => 16,
            Length::None | Length::Int => 32,
            Length::Long => 64,
        }
    }
}

/// One parsed conversion specification.
#[derive(Debug, Clone, Copy)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    hash: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// The lanes of the vector specifier `vN`.
    vector: Option<u32>,
    length: Length,
    conversion: u8,
}

/// Widths and precisions above C's `int` are invalid (glibc fails with `EOVERFLOW`).
const MAX_NUMBER: usize = i32::MAX as usize;

/// Parses the specification starting at `format[i]` (after the `%`), returning it and the
/// index after it.
fn parse(format: &[u8], mut i: usize) -> Result<(Spec, usize), Error> {
    let mut spec = Spec {
        minus: false,
        plus: false,
        space: false,
        hash: false,
        zero: false,
        width: 0,
        precision: None,
        vector: None,
        length: Length::None,
        conversion: 0,
    };
    while let Some(&c) = format.get(i) {
        match c {
            b'-' => spec.minus = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.hash = true,
            b'0' => spec.zero = true,
            _ => break,
        }
        i += 1;
    }
    let number = |i: &mut usize| -> Result<usize, Error> {
        let mut n = 0usize;
        while let Some(&c) = format.get(*i).filter(|c| c.is_ascii_digit()) {
            n = n * 10 + usize::from(c - b'0');
            if n > MAX_NUMBER {
                return Err(Error::Invalid);
            }
            *i += 1;
        }
        Ok(n)
    };
    spec.width = number(&mut i)?;
    if format.get(i) == Some(&b'.') {
        i += 1;
        spec.precision = Some(number(&mut i)?);
    }
    if format.get(i) == Some(&b'v') {
        i += 1;
        let start = i;
        let n = number(&mut i)?;
        if i == start || ![2, 3, 4, 8, 16].contains(&n) {
            return Err(Error::Invalid);
        }
        spec.vector = Some(n as u32);
    }
    match (format.get(i), format.get(i + 1)) {
        (Some(b'h'), Some(b'h')) => (spec.length, i) = (Length::Char, i + 2),
        (Some(b'h'), Some(b'l')) => (spec.length, i) = (Length::Int, i + 2),
        (Some(b'h'), _) => (spec.length, i) = (Length::Short, i + 1),
        (Some(b'l'), _) => (spec.length, i) = (Length::Long, i + 1),
        _ => {}
    }
    match format.get(i) {
        Some(&c) if b"diouxXfFeEgGaAcsp".contains(&c) => spec.conversion = c,
        _ => return Err(Error::Invalid),
    }
    Ok((spec, i + 1))
}

/// Checks `arg` against `spec` and formats each of its lanes.
fn convert(out: &mut Out, spec: &Spec, arg: &PrintfArg) -> Result<(), Error> {
    let lanes = spec.vector.unwrap_or(1);
    if arg.count != lanes {
        return Err(Error::Invalid);
    }
    let lanes = &arg.lanes[..lanes as usize];
    let check = |ok: bool| if ok { Ok(()) } else { Err(Error::Invalid) };
    match spec.conversion {
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
            check(arg.kind == KIND_SIGNED || arg.kind == KIND_UNSIGNED)?;
            let bits = spec.length.bits();
            match spec.vector {
                Some(_) => check(spec.length != Length::None && arg.size * 8 == bits)?,
                None => check(spec.length != Length::Int)?,
            }
            for (n, &lane) in lanes.iter().enumerate() {
                if n > 0 {
                    out.push(b",")?;
                }
                integer(out, spec, lane, bits)?;
            }
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
            check(match (spec.vector, spec.length) {
                (Some(_), Length::Short) => arg.kind == KIND_FLOAT && arg.size == 2,
                (Some(_), Length::Int) => arg.kind == KIND_FLOAT && arg.size == 4,
                (Some(_), Length::Long) => arg.kind == KIND_DOUBLE && arg.size == 8,
                (Some(_), _) => false,
                (None, Length::None | Length::Long) => {
                    arg.kind == KIND_FLOAT || arg.kind == KIND_DOUBLE
                }
                (None, _) => false,
            })?;
            for (n, &lane) in lanes.iter().enumerate() {
                if n > 0 {
                    out.push(b",")?;
                }
                let value = if arg.kind == KIND_FLOAT {
                    widen(lane as u32)
                } else {
                    f64::from_bits(lane)
                };
                float(out, spec, value)?;
            }
        }
        c => {
            check(spec.vector.is_none() && spec.length == Length::None)?;
            let lane = lanes[0];
            match c {
                b'c' => {
                    check(arg.kind == KIND_SIGNED || arg.kind == KIND_UNSIGNED)?;
                    out.field(spec, b"", b"", &[lane as u8], false)?;
                }
                b's' => {
                    check(arg.kind == KIND_POINTER)?;
                    string(out, spec, std::ptr::with_exposed_provenance(lane as usize))?;
                }
                _ => {
                    check(arg.kind == KIND_POINTER)?;
                    pointer(out, spec, lane)?;
                }
            }
        }
    }
    Ok(())
}

/// A float's value as a double, keeping a NaN's sign (glibc prints `-nan`).
fn widen(bits: u32) -> f64 {
    let value = f32::from_bits(bits);
    if value.is_nan() {
        let sign = u64::from(bits >> 31) << 63;
        f64::from_bits(sign | 0x7ff8_0000_0000_0000)
    } else {
        f64::from(value)
    }
}

/// `d i o u x X` of `lane` converted to the integer type of `bits`.
fn integer(out: &mut Out, spec: &Spec, lane: u64, bits: u32) -> Result<(), Error> {
    let shift = 64 - bits;
    let signed = matches!(spec.conversion, b'd' | b'i');
    let (negative, magnitude) = if signed {
        let value = ((lane << shift) as i64) >> shift;
        (value < 0, value.unsigned_abs())
    } else {
        (false, (lane << shift) >> shift)
    };
    let mut digits = match spec.conversion {
        b'o' => format!("{magnitude:o}"),
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    }
    .into_bytes();
    let precision = spec.precision.unwrap_or(1);
    if magnitude == 0 && precision == 0 {
        digits.clear();
    }
    let zeros = precision.saturating_sub(digits.len());
    // The precision's leading zeros belong to the body; a huge precision is bounded by the
    // output's limit before anything is allocated.
    out.reserve(zeros)?;
    let mut body = vec![b'0'; zeros];
    body.extend_from_slice(&digits);
    if spec.conversion == b'o' && spec.hash && body.first() != Some(&b'0') {
        body.insert(0, b'0');
    }
    let prefix: &[u8] = match spec.conversion {
        b'x' if spec.hash && magnitude != 0 => b"0x",
        b'X' if spec.hash && magnitude != 0 => b"0X",
        _ => b"",
    };
    let sign: &[u8] = if !signed {
        b""
    } else if negative {
        b"-"
    } else {
        plus_or_space(spec)
    };
    out.field(
        spec,
        sign,
        prefix,
        &body,
        spec.zero && spec.precision.is_none(),
    )
}

/// The sign of a non-negative signed conversion: `+` with the `+` flag, else a space with
/// the space flag (which `+` overrides).
fn plus_or_space(spec: &Spec) -> &'static [u8] {
    if spec.plus {
        b"+"
    } else if spec.space {
        b" "
    } else {
        b""
    }
}

/// `%s`: the bytes up to the NUL, at most the precision; glibc's `(null)` for null.
fn string(out: &mut Out, spec: &Spec, address: *const u8) -> Result<(), Error> {
    let limit = spec.precision.unwrap_or(usize::MAX);
    if address.is_null() {
        let text: &[u8] = if limit >= 6 { b"(null)" } else { b"" };
        return out.field(spec, b"", b"", text, false);
    }
    let mut len = 0;
    // SAFETY: the caller of `clift_printf` (and of `format`) guarantees that a `%s` argument
    // points to a string NUL-terminated within its first `limit` bytes or at least `limit`
    // bytes long; the loop reads no byte after the NUL or past `limit`.
    while len < limit && unsafe { *address.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: the `len` bytes just read are readable.
    let text = unsafe { std::slice::from_raw_parts(address, len) };
    out.field(spec, b"", b"", text, false)
}

/// `%p` as glibc prints it: `(nil)`, or the address as `%#lx` would.
fn pointer(out: &mut Out, spec: &Spec, address: u64) -> Result<(), Error> {
    if address == 0 {
        return out.field(spec, b"", b"", b"(nil)", false);
    }
    let sign = plus_or_space(spec);
    let digits = format!("{address:x}").into_bytes();
    let zeros = spec.precision.unwrap_or(1).saturating_sub(digits.len());
    out.reserve(zeros)?;
    let mut body = vec![b'0'; zeros];
    body.extend_from_slice(&digits);
    out.field(
        spec,
        sign,
        b"0x",
        &body,
        spec.zero && spec.precision.is_none(),
    )
}

/// `f F e E g G a A` of `value`.
fn float(out: &mut Out, spec: &Spec, value: f64) -> Result<(), Error> {
    let upper = spec.conversion.is_ascii_uppercase();
    let sign: &[u8] = if value.is_sign_negative() {
        b"-"
    } else {
        plus_or_space(spec)
    };
    if !value.is_finite() {
        let body: &[u8] = match (value.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        return out.field(spec, sign, b"", body, false);
    }
    let value = value.abs();
    // Conversions whose text is at least as long as the precision: refuse one beyond the
    // limit before building it.
    let long = !matches!(spec.conversion, b'g' | b'G') || spec.hash;
    if long {
        out.reserve(spec.precision.unwrap_or(0))?;
    }
    let mut prefix: &[u8] = b"";
    let body = match spec.conversion.to_ascii_lowercase() {
        b'f' => fixed(&Decimal::of(value).round(spec.precision.unwrap_or(6)), spec),
        b'e' => scientific(value, spec.precision.unwrap_or(6), spec),
        b'g' => general(value, spec),
        _ => {
            prefix = if upper { b"0X" } else { b"0x" };
            hexadecimal(value, spec)
        }
    };
    out.field(spec, sign, prefix, &body, spec.zero)
}

/// `%f` of an already rounded decimal: all integer digits, `precision` fraction digits, and
/// the point if there are any (or `#`).
fn fixed(d: &Decimal, spec: &Spec) -> Vec<u8> {
    fixed_digits(d, spec.precision.unwrap_or(6), spec.hash)
}

/// [`fixed`] with an explicit precision.
fn fixed_digits(d: &Decimal, precision: usize, point: bool) -> Vec<u8> {
    let mut body = Vec::new();
    if d.point <= 0 {
        body.push(b'0');
    } else {
        body.extend((0..d.point as i64).map(|i| b'0' + d.digit(i)));
    }
    if precision > 0 || point {
        body.push(b'.');
    }
    let start = i64::from(d.point);
    body.extend((0..precision as i64).map(|i| b'0' + d.digit(start + i)));
    body
}

/// `%e` with `precision` fraction digits.
fn scientific(value: f64, precision: usize, spec: &Spec) -> Vec<u8> {
    let d = Decimal::of(value).round_significant(precision + 1);
    exponent_form(&d, precision, spec)
}

/// `%e` of an already rounded decimal with `precision` fraction digits.
fn exponent_form(d: &Decimal, precision: usize, spec: &Spec) -> Vec<u8> {
    let mut body = vec![b'0' + d.digit(0)];
    if precision > 0 || spec.hash {
        body.push(b'.');
    }
    body.extend((1..=precision as i64).map(|i| b'0' + d.digit(i)));
    let exponent = if d.digits.is_empty() { 0 } else { d.point - 1 };
    body.push(if spec.conversion.is_ascii_uppercase() {
        b'E'
    } else {
        b'e'
    });
    body.push(if exponent < 0 { b'-' } else { b'+' });
    body.extend(format!("{:02}", exponent.unsigned_abs()).bytes());
    body
}

/// `%g`: `%e` or `%f` by the exponent after rounding to P significant digits (7.19.6.1),
/// without trailing zeros unless `#`.
fn general(value: f64, spec: &Spec) -> Vec<u8> {
    let p = spec.precision.unwrap_or(6).max(1);
    let exact = Decimal::of(value);
    let unrounded = i64::from(exact.point) - 1;
    let d = exact.round_significant(p);
    let x = if d.digits.is_empty() {
        0
    } else {
        i64::from(d.point) - 1
    };
    if spec.hash && unrounded == p as i64 - 1 && x == p as i64 {
        // glibc's choice (which this follows byte for byte): when the value has P integer
        // digits and rounds up to 10^P, glibc switches from the `%f` to the `%e` form
        // after rounding and keeps the `%f` form's zero fraction digits, so `%#.6g` of
        // 999999.5 is "1.e+06" where C99 asks for "1.00000e+06".
        return exponent_form(&d, 0, spec);
    }
    // Without `#`, the rounded digits (which carry no trailing zeros) are all there is.
    let kept = d.digits.len();
    if (p as i64) > x && x >= -4 {
        let precision = (p as i64 - 1 - x) as usize;
        if spec.hash {
            fixed_digits(&d, precision, true)
        } else {
            let fraction = (kept as i64 - i64::from(d.point)).max(0) as usize;
            fixed_digits(&d, fraction.min(precision), false)
        }
    } else if spec.hash {
        exponent_form(&d, p - 1, spec)
    } else {
        // Nonzero here (zero takes the `%f` form), so at least one digit.
        exponent_form(&d, kept.saturating_sub(1), spec)
    }
}

/// `%a`: `0x1.hhhp±d` for normal values (`0x0.hhhp-1022` for subnormals, `0x0p+0` for
/// zero), the fraction's hex digits without trailing zeros, or rounded half to even to the
/// precision (a carry out of the fraction increments the leading digit: `0x2p+0`, as glibc).
fn hexadecimal(value: f64, spec: &Spec) -> Vec<u8> {
    let bits = value.to_bits();
    let field = (bits >> 52) as i32 & 0x7ff;
    let mut fraction = bits & ((1 << 52) - 1);
    let (mut leading, exponent) = match (field, fraction) {
        (0, 0) => (0u8, 0),
        (0, _) => (0, -1022),
        _ => (1, field - 1023),
    };
    let mut digits = match spec.precision {
        None => {
            let mut n = 13;
            while n > 0 && (fraction >> (52 - 4 * n)) & 0xf == 0 {
                n -= 1;
            }
            n
        }
        Some(p) if p >= 13 => p,
        Some(p) => {
            let dropped = 52 - 4 * p as u32;
            let half = 1u64 << (dropped - 1);
            let rest = fraction & ((1 << dropped) - 1);
            fraction >>= dropped;
            let last = if p == 0 { u64::from(leading) } else { fraction };
            if rest > half || (rest == half && last & 1 == 1) {
                fraction += 1;
                if fraction >> (4 * p) != 0 {
                    fraction = 0;
                    leading += 1;
                }
            }
            fraction <<= dropped;
            p
        }
    };
    let hex: &[u8; 16] = if spec.conversion == b'A' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut body = vec![b'0' + leading];
    if digits > 0 || spec.hash {
        body.push(b'.');
    }
    let mut n = 0;
    while digits > 0 {
        let digit = if n < 13 {
            (fraction >> (48 - 4 * n)) & 0xf
        } else {
            0
        };
        body.push(hex[digit as usize]);
        n += 1;
        digits -= 1;
    }
    body.push(if spec.conversion == b'A' { b'P' } else { b'p' });
    body.push(if exponent < 0 { b'-' } else { b'+' });
    body.extend(exponent.unsigned_abs().to_string().bytes());
    body
}

/// A non-negative decimal `0.d₀d₁d₂… × 10^point`, with no trailing zero digits (zero has no
/// digits).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    /// Digit values 0..=9, the first nonzero.
    digits: Vec<u8>,
    point: i32,
}

impl Decimal {
    /// The exact decimal expansion of a finite, non-negative double: `m × 2^q` is
    /// `m × 5^-q × 10^q` for negative `q`, so one big integer holds every digit.
    fn of(value: f64) -> Decimal {
        let bits = value.to_bits();
        let field = (bits >> 52) as i32 & 0x7ff;
        let fraction = bits & ((1 << 52) - 1);
        let (mut m, mut q) = if field == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, field - 1075)
        };
        if m == 0 {
            return Decimal {
                digits: Vec::new(),
                point: 0,
            };
        }
        let zeros = m.trailing_zeros() as i32;
        m >>= zeros;
        q += zeros;
        let mut n = Big::from(m);
        if q >= 0 {
            n.shift_left(q as u32);
        } else {
            n.multiply_by_power_of_5(q.unsigned_abs());
        }
        let digits = n.into_decimal_digits();
        let point = digits.len() as i32 + q.min(0);
        let mut d = Decimal { digits, point };
        d.trim();
        d
    }

    /// Digit `i` (0 is the first), 0 outside the stored digits.
    fn digit(&self, i: i64) -> u8 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.digits.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Rounded to `precision` digits after the decimal point.
    fn round(self, precision: usize) -> Decimal {
        let keep = i64::from(self.point).saturating_add(precision as i64);
        self.round_to(keep)
    }

    /// Rounded to `n` (≥ 1) significant digits.
    fn round_significant(self, n: usize) -> Decimal {
        self.round_to(n as i64)
    }

    /// Rounded half to even, keeping the first `keep` digits.
    fn round_to(mut self, keep: i64) -> Decimal {
        let len = self.digits.len() as i64;
        if keep >= len {
            return self;
        }
        if keep < 0 {
            // Below half a unit of the last kept place.
            return Decimal {
                digits: Vec::new(),
                point: 0,
            };
        }
        let k = keep as usize;
        let next = self.digits[k];
        let odd = k > 0 && self.digits[k - 1] % 2 == 1;
        // No trailing zeros are stored: any digit after `next` makes the rest nonzero.
        let up = next > 5 || (next == 5 && (len > keep + 1 || odd));
        self.digits.truncate(k);
        if up {
            while self.digits.last() == Some(&9) {
                self.digits.pop();
            }
            match self.digits.last_mut() {
                Some(last) => *last += 1,
                None => {
                    self.digits.push(1);
                    self.point += 1;
                }
            }
        }
        self.trim();
        self
    }

    /// Drops trailing zero digits.
    fn trim(&mut self) {
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        if self.digits.is_empty() {
            self.point = 0;
        }
    }
}

/// An unsigned big integer, 32-bit limbs, least significant first: just enough for exact
/// decimal expansions of doubles (at most 1024 + 53 or 53 + 2494 bits).
struct Big(Vec<u32>);

impl From<u64> for Big {
    fn from(value: u64) -> Big {
        Big(vec![value as u32, (value >> 32) as u32])
    }
}

impl Big {
    fn multiply(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn multiply_by_power_of_5(&mut self, mut exponent: u32) {
        // 5^13 is the largest power of 5 in a u32.
        while exponent >= 13 {
            self.multiply(1_220_703_125);
            exponent -= 13;
        }
        self.multiply(5u32.pow(exponent));
    }

    fn shift_left(&mut self, bits: u32) {
        let limbs = (bits / 32) as usize;
        let bits = bits % 32;
        if bits > 0 {
            let mut carry = 0;
            for limb in &mut self.0 {
                let wide = (u64::from(*limb) << bits) | carry;
                *limb = wide as u32;
                carry = wide >> 32;
            }
            if carry != 0 {
                self.0.push(carry as u32);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    /// Divides in place, returning the remainder.
    fn divide(&mut self, divisor: u32) -> u32 {
        let mut remainder = 0u64;
        for limb in self.0.iter_mut().rev() {
            let wide = (remainder << 32) | u64::from(*limb);
            *limb = (wide / u64::from(divisor)) as u32;
            remainder = wide % u64::from(divisor);
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        remainder as u32
    }

    /// The decimal digits (values 0..=9), most significant first, without leading zeros.
    fn into_decimal_digits(mut self) -> Vec<u8> {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        let mut chunks = Vec::new();
        while !self.0.is_empty() {
            chunks.push(self.divide(1_000_000_000));
        }
        let mut digits = Vec::with_capacity(chunks.len() * 9);
        for chunk in chunks.iter().rev() {
            let mut nine = [0u8; 9];
            let mut c = *chunk;
            for d in nine.iter_mut().rev() {
                *d = (c % 10) as u8;
                c /= 10;
            }
            digits.extend_from_slice(&nine);
        }
        let first = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
        digits.drain(..first);
        digits
    }
}
