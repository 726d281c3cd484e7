//! Integer types of up to 32 bits as the kernel-running tests compute with them: C's
//! conversions (wrapping, saturating) and their bytes in buffers.

/// An integer type of at most 32 bits: its OpenCL name, width and signedness.
#[derive(Clone, Copy, Debug)]
pub struct Int {
    pub name: &'static str,
    pub bits: u32,
    pub signed: bool,
}

pub const fn int(name: &'static str, bits: u32, signed: bool) -> Int {
    Int { name, bits, signed }
}

pub const CHAR: Int = int("char", 8, true);
pub const UCHAR: Int = int("uchar", 8, false);
pub const SHORT: Int = int("short", 16, true);
pub const USHORT: Int = int("ushort", 16, false);
pub const INT: Int = int("int", 32, true);
pub const UINT: Int = int("uint", 32, false);
pub const NARROW: [Int; 4] = [CHAR, UCHAR, SHORT, USHORT];

impl Int {
    pub fn bytes(self) -> usize {
        self.bits as usize / 8
    }
    pub fn range(self) -> (i64, i64) {
        if self.signed {
            (-(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1)
        } else {
            (0, (1 << self.bits) - 1)
        }
    }
    /// `v`'s low bits as a value of this type (C's conversion to it).
    pub fn wrap(self, v: i64) -> i64 {
        let low = v & ((1i64 << self.bits) - 1);
        if self.signed && low >> (self.bits - 1) == 1 {
            low - (1 << self.bits)
        } else {
            low
        }
    }
    /// `v` clamped to this type's range (`convert_T_sat`).
    pub fn sat(self, v: i64) -> i64 {
        let (lo, hi) = self.range();
        v.clamp(lo, hi)
    }
    /// A float converted to this type as clift converts it: towards zero, saturating, NaN
    /// to 0 (the non-saturating conversion of a value out of range is undefined; clift
    /// saturates it too).
    pub fn of_float(self, x: f32) -> i64 {
        let t = x.trunc();
        if t.is_nan() { 0 } else { self.sat(t as i64) }
    }
    /// The little-endian bytes of `values` as elements of this type.
    pub fn encode(self, values: &[i64]) -> Vec<u8> {
        values
            .iter()
            .flat_map(|v| v.to_le_bytes()[..self.bytes()].to_vec())
            .collect()
    }
    /// The elements of this type in `bytes`.
    pub fn decode(self, bytes: &[u8]) -> Vec<i64> {
        bytes
            .chunks(self.bytes())
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                self.wrap(i64::from_le_bytes(b))
            })
            .collect()
    }
}
