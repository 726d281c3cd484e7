//! Image formats: which channel orders and types clift supports, how big an element is,
//! and the conversions between an element's bytes and the `float4`/`int4`/`uint4` colour a
//! kernel sees (section 8.3 of the specification).
//!
//! Reads map the stored channels to (r, g, b, a): a channel the order lacks reads as 0, and
//! alpha as 1 (1.0f or 1); `CL_INTENSITY` replicates its one channel into all four and
//! `CL_LUMINANCE` into r, g and b. Writes convert with the rules the spec recommends
//! (`convert_<T>_sat_rte(f * max)` for normalized types, round to nearest even for half,
//! saturation for the integer types).

use khronos_headers::*;

use crate::half::{clift_f32_to_half_rte, clift_half_to_f32};

/// A channel order and channel data type (`cl_image_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    pub order: u32,
    pub data_type: u32,
}

/// The channel data types, grouped by how they convert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// UNORM/SNORM 8/16, HALF_FLOAT, FLOAT: read with `read_imagef`.
    Float,
    /// SIGNED_INT8/16/32: `read_imagei`.
    Signed,
    /// UNSIGNED_INT8/16/32: `read_imageui`.
    Unsigned,
}

const ORDERS: [u32; 10] = [
    CL_R,
    CL_A,
    CL_RG,
    CL_RA,
    CL_RGB,
    CL_RGBA,
    CL_BGRA,
    CL_ARGB,
    CL_INTENSITY,
    CL_LUMINANCE,
];

const TYPES: [u32; 15] = [
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_UNORM_SHORT_565,
    CL_UNORM_SHORT_555,
    CL_UNORM_INT_101010,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
    CL_HALF_FLOAT,
    CL_FLOAT,
];

/// The `CLK_*` names OpenCL C gives the channel orders and data types (their values are
/// the host's `CL_*` ones, so `get_image_channel_order` needs no translation).
pub const KERNEL_CONSTANTS: [(&str, u32); 25] = [
    ("CLK_R", CL_R),
    ("CLK_A", CL_A),
    ("CLK_RG", CL_RG),
    ("CLK_RA", CL_RA),
    ("CLK_RGB", CL_RGB),
    ("CLK_RGBA", CL_RGBA),
    ("CLK_BGRA", CL_BGRA),
    ("CLK_ARGB", CL_ARGB),
    ("CLK_INTENSITY", CL_INTENSITY),
    ("CLK_LUMINANCE", CL_LUMINANCE),
    ("CLK_SNORM_INT8", CL_SNORM_INT8),
    ("CLK_SNORM_INT16", CL_SNORM_INT16),
    ("CLK_UNORM_INT8", CL_UNORM_INT8),
    ("CLK_UNORM_INT16", CL_UNORM_INT16),
    ("CLK_UNORM_SHORT_565", CL_UNORM_SHORT_565),
    ("CLK_UNORM_SHORT_555", CL_UNORM_SHORT_555),
    ("CLK_UNORM_INT_101010", CL_UNORM_INT_101010),
    ("CLK_SIGNED_INT8", CL_SIGNED_INT8),
    ("CLK_SIGNED_INT16", CL_SIGNED_INT16),
    ("CLK_SIGNED_INT32", CL_SIGNED_INT32),
    ("CLK_UNSIGNED_INT8", CL_UNSIGNED_INT8),
    ("CLK_UNSIGNED_INT16", CL_UNSIGNED_INT16),
    ("CLK_UNSIGNED_INT32", CL_UNSIGNED_INT32),
    ("CLK_HALF_FLOAT", CL_HALF_FLOAT),
    ("CLK_FLOAT", CL_FLOAT),
];

impl Format {
    pub const fn new(order: u32, data_type: u32) -> Format {
        Format { order, data_type }
    }

    /// Every format clift supports for every image type: all pairs the specification allows
    /// (Table 5.6's restrictions: RGB only with the packed types, which go only with RGB;
    /// BGRA and ARGB only with 8-bit channels; INTENSITY and LUMINANCE only with the
    /// normalized, half and float types).
    pub fn supported() -> Vec<Format> {
        let mut out = Vec::new();
        for order in ORDERS {
            for data_type in TYPES {
                let f = Format::new(order, data_type);
                if f.is_supported() {
                    out.push(f);
                }
            }
        }
        out
    }

    pub fn is_supported(self) -> bool {
        let packed = matches!(
            self.data_type,
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010
        );
        if !TYPES.contains(&self.data_type) || !ORDERS.contains(&self.order) {
            return false;
        }
        match self.order {
            CL_RGB => packed,
            _ if packed => false,
            CL_BGRA | CL_ARGB => matches!(
                self.data_type,
                CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8
            ),
            CL_INTENSITY | CL_LUMINANCE => matches!(
                self.data_type,
                CL_UNORM_INT8
                    | CL_UNORM_INT16
                    | CL_SNORM_INT8
                    | CL_SNORM_INT16
                    | CL_HALF_FLOAT
                    | CL_FLOAT
            ),
            _ => true,
        }
    }

    /// Channels stored per element (a packed type is one 16- or 32-bit word).
    pub fn channel_count(self) -> usize {
        match self.order {
            CL_RG | CL_RA => 2,
            CL_RGB => 3,
            CL_RGBA | CL_BGRA | CL_ARGB => 4,
            _ => 1,
        }
    }

    fn channel_size(self) -> usize {
        match self.data_type {
            CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
            CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
            _ => 2,
        }
    }

    /// `CL_IMAGE_ELEMENT_SIZE`: bytes per element.
    pub fn element_size(self) -> usize {
        match self.data_type {
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
            CL_UNORM_INT_101010 => 4,
            _ => self.channel_count() * self.channel_size(),
        }
    }

    fn class(self) -> Class {
        match self.data_type {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => Class::Signed,
            CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => Class::Unsigned,
            _ => Class::Float,
        }
    }

    /// Whether the fill colour of `clEnqueueFillImage` is an `int4` (signed integer
    /// formats), a `uint4` (unsigned ones) or a `float4` (the rest).
    pub fn fill_kind(self) -> FillKind {
        match self.class() {
            Class::Float => FillKind::Float,
            Class::Signed => FillKind::Int,
            Class::Unsigned => FillKind::Uint,
        }
    }

    /// Which stored channel holds r, g, b and a (`None`: the order lacks it).
    fn channel_of(self) -> [Option<usize>; 4] {
        match self.order {
            CL_R => [Some(0), None, None, None],
            CL_A => [None, None, None, Some(0)],
            CL_RG => [Some(0), Some(1), None, None],
            CL_RA => [Some(0), None, None, Some(1)],
            CL_RGB => [Some(0), Some(1), Some(2), None],
            CL_RGBA => [Some(0), Some(1), Some(2), Some(3)],
            CL_BGRA => [Some(2), Some(1), Some(0), Some(3)],
            CL_ARGB => [Some(1), Some(2), Some(3), Some(0)],
            CL_INTENSITY => [Some(0); 4],
            // CL_LUMINANCE
            _ => [Some(0), Some(0), Some(0), None],
        }
    }

    /// Whether the order has an alpha channel, which decides the border colour.
    pub fn has_alpha(self) -> bool {
        self.channel_of()[3].is_some()
    }

    /// The colour outside the image with `CLK_ADDRESS_CLAMP`: (0, 0, 0, 0) when the order
    /// has alpha, else (0, 0, 0, 1) (section 8.2).
    pub fn border_float(self) -> [f32; 4] {
        [0.0, 0.0, 0.0, if self.has_alpha() { 0.0 } else { 1.0 }]
    }

    pub fn border_int(self) -> [u32; 4] {
        [0, 0, 0, u32::from(!self.has_alpha())]
    }

    /// The packed types' channels: (shift, bits) of r, g and b.
    fn packed_fields(self) -> Option<[(u32, u32); 3]> {
        match self.data_type {
            CL_UNORM_SHORT_565 => Some([(11, 5), (5, 6), (0, 5)]),
            CL_UNORM_SHORT_555 => Some([(10, 5), (5, 5), (0, 5)]),
            CL_UNORM_INT_101010 => Some([(20, 10), (10, 10), (0, 10)]),
            _ => None,
        }
    }

    fn packed_word(self, texel: &[u8]) -> u32 {
        match self.element_size() {
            2 => u32::from(u16::from_ne_bytes([texel[0], texel[1]])),
            _ => u32::from_ne_bytes([texel[0], texel[1], texel[2], texel[3]]),
        }
    }

    /// The stored channels as the floats `read_imagef` gives (section 8.3.1), in storage
    /// order; the rest stay 0. One match on the data type per element, not per channel:
    /// every image read of a kernel comes through here.
    fn stored_floats(self, texel: &[u8]) -> [f32; 4] {
        if let Some(fields) = self.packed_fields() {
            let word = self.packed_word(texel);
            let mut out = [0.0; 4];
            for (o, (shift, bits)) in out.iter_mut().zip(fields) {
                let raw = (word >> shift) & ((1 << bits) - 1);
                *o = raw as f32 / ((1u32 << bits) - 1) as f32;
            }
            return out;
        }
        let n = self.channel_count();
        match self.data_type {
            CL_UNORM_INT8 => each(n, |c| f32::from(texel[c]) / 255.0),
            CL_SNORM_INT8 => each(n, |c| (f32::from(texel[c] as i8) / 127.0).max(-1.0)),
            CL_UNORM_INT16 => each(n, |c| f32::from(u16_at(texel, c)) / 65535.0),
            CL_SNORM_INT16 => each(n, |c| {
                (f32::from(u16_at(texel, c) as i16) / 32767.0).max(-1.0)
            }),
            CL_HALF_FLOAT => each(n, |c| clift_half_to_f32(u16_at(texel, c))),
            CL_FLOAT => each(n, |c| f32::from_bits(u32_at(texel, c))),
            // The integer types (undefined for `read_imagef`): their values as floats.
            CL_SIGNED_INT32 => each(n, |c| u32_at(texel, c) as i32 as f32),
            CL_UNSIGNED_INT32 => each(n, |c| u32_at(texel, c) as f32),
            _ => self.stored_ints(texel).map(|v| match self.class() {
                Class::Signed => v as i32 as f32,
                _ => v as f32,
            }),
        }
    }

    /// The stored channels as raw integers (sign-extended for the signed types), in storage
    /// order (section 8.3.4); the rest stay 0.
    fn stored_ints(self, texel: &[u8]) -> [u32; 4] {
        if let Some(fields) = self.packed_fields() {
            let word = self.packed_word(texel);
            let mut out = [0; 4];
            for (o, (shift, bits)) in out.iter_mut().zip(fields) {
                *o = (word >> shift) & ((1 << bits) - 1);
            }
            return out;
        }
        let n = self.channel_count();
        match self.data_type {
            CL_UNORM_INT8 | CL_UNSIGNED_INT8 => each(n, |c| u32::from(texel[c])),
            CL_SNORM_INT8 | CL_SIGNED_INT8 => each(n, |c| texel[c] as i8 as i32 as u32),
            CL_SNORM_INT16 | CL_SIGNED_INT16 => each(n, |c| u16_at(texel, c) as i16 as i32 as u32),
            CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => each(n, |c| u32_at(texel, c)),
            // UNORM_INT16, UNSIGNED_INT16, HALF_FLOAT.
            _ => each(n, |c| u32::from(u16_at(texel, c))),
        }
    }

    /// Places stored channels at their (r, g, b, a) lanes; a lane the order lacks reads as
    /// 0, alpha as `one`.
    fn place<T: Copy + Default>(self, stored: [T; 4], one: T) -> [T; 4] {
        let mut out = [T::default(), T::default(), T::default(), one];
        for (lane, c) in self.channel_of().into_iter().enumerate() {
            if let Some(c) = c {
                out[lane] = stored[c];
            }
        }
        out
    }

    /// `read_imagef`'s colour of one element (section 8.3.1: `c / 255.0f`, ...).
    pub fn decode_float(self, texel: &[u8]) -> [f32; 4] {
        self.place(self.stored_floats(texel), 1.0)
    }

    /// `read_imagei`/`read_imageui`'s colour: the stored integers (section 8.3.4).
    pub fn decode_int(self, texel: &[u8]) -> [u32; 4] {
        self.place(self.stored_ints(texel), 1)
    }

    /// For each stored channel, the colour component it holds (`write_image*` derives the
    /// stored values from them), and how many channels are stored.
    fn stored_components(self) -> ([usize; 4], usize) {
        let map = self.channel_of();
        let n = self.channel_count();
        let mut out = [0; 4];
        for (c, o) in out.iter_mut().enumerate().take(n) {
            *o = map.iter().position(|&m| m == Some(c)).unwrap_or(0);
        }
        (out, n)
    }

    /// `write_imagef`'s conversion (section 8.3.1.2, 8.3.2, 8.3.3) into `out`.
    pub fn encode_float(self, color: [f32; 4], out: &mut [u8]) {
        if let Some(fields) = self.packed_fields() {
            let mut word = 0u32;
            for (lane, (shift, bits)) in fields.into_iter().enumerate() {
                let max = ((1u32 << bits) - 1) as f32;
                word |= (sat_rte(color[lane] * max, 0.0, max) as u32) << shift;
            }
            let bytes = word.to_ne_bytes();
            let n = self.element_size();
            out[..n].copy_from_slice(&bytes[..n]);
            return;
        }
        let (lanes, n) = self.stored_components();
        let f = |c: usize| color[lanes[c]];
        match self.data_type {
            CL_UNORM_INT8 => (0..n).for_each(|c| out[c] = sat_rte(f(c) * 255.0, 0.0, 255.0) as u8),
            CL_SNORM_INT8 => {
                (0..n).for_each(|c| out[c] = sat_rte(f(c) * 127.0, -128.0, 127.0) as i8 as u8)
            }
            CL_UNORM_INT16 => (0..n).for_each(|c| {
                put(
                    out,
                    c,
                    &(sat_rte(f(c) * 65535.0, 0.0, 65535.0) as u16).to_ne_bytes(),
                )
            }),
            CL_SNORM_INT16 => (0..n).for_each(|c| {
                put(
                    out,
                    c,
                    &(sat_rte(f(c) * 32767.0, -32768.0, 32767.0) as i16).to_ne_bytes(),
                )
            }),
            CL_HALF_FLOAT => {
                (0..n).for_each(|c| put(out, c, &clift_f32_to_half_rte(f(c)).to_ne_bytes()))
            }
            CL_FLOAT => (0..n).for_each(|c| put(out, c, &f(c).to_ne_bytes())),
            // Integer formats: `write_imagef` is undefined there; store the rounded,
            // saturated value rather than garbage.
            _ => {
                let size = self.channel_size();
                for c in 0..n {
                    let v = sat_rte(f(c), i32::MIN as f32, u32::MAX as f32);
                    self.store_integer(&mut out[c * size..(c + 1) * size], v);
                }
            }
        }
    }

    /// `write_imagei`'s conversion: `convert_<T>_sat` of each component (section 8.3.4).
    pub fn encode_int(self, color: [i32; 4], out: &mut [u8]) {
        let size = self.channel_size();
        let (lanes, n) = self.stored_components();
        for (c, &lane) in lanes.iter().enumerate().take(n) {
            self.store_integer(&mut out[c * size..(c + 1) * size], i64::from(color[lane]));
        }
    }

    /// `write_imageui`'s conversion: `convert_<T>_sat` of each component.
    pub fn encode_uint(self, color: [u32; 4], out: &mut [u8]) {
        let size = self.channel_size();
        let (lanes, n) = self.stored_components();
        for (c, &lane) in lanes.iter().enumerate().take(n) {
            self.store_integer(&mut out[c * size..(c + 1) * size], i64::from(color[lane]));
        }
    }

    /// Stores `v` saturated to the channel's integer range.
    fn store_integer(self, dst: &mut [u8], v: i64) {
        let signed = matches!(
            self.data_type,
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 | CL_SNORM_INT8 | CL_SNORM_INT16
        );
        let bits = 8 * dst.len() as u32;
        let (lo, hi) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        let bytes = v.clamp(lo, hi).to_ne_bytes();
        dst.copy_from_slice(&bytes[..dst.len()]);
    }
}

/// What `clEnqueueFillImage`'s colour is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillKind {
    Float,
    Int,
    Uint,
}

/// `[f(0), .., f(n - 1), 0, ..]`: the `n` stored channels of an element.
#[inline(always)]
fn each<T: Copy + Default>(n: usize, f: impl Fn(usize) -> T) -> [T; 4] {
    let mut out = [T::default(); 4];
    for (c, o) in out.iter_mut().enumerate().take(n) {
        *o = f(c);
    }
    out
}

/// The 16-bit channel `c` of an element.
#[inline(always)]
fn u16_at(texel: &[u8], c: usize) -> u16 {
    u16::from_ne_bytes([texel[2 * c], texel[2 * c + 1]])
}

/// The 32-bit channel `c` of an element.
#[inline(always)]
fn u32_at(texel: &[u8], c: usize) -> u32 {
    let b = &texel[4 * c..4 * c + 4];
    u32::from_ne_bytes([b[0], b[1], b[2], b[3]])
}

/// Stores the bytes of channel `c` (of `bytes.len()` bytes each).
#[inline(always)]
fn put(out: &mut [u8], c: usize, bytes: &[u8]) {
    let n = bytes.len();
    out[c * n..(c + 1) * n].copy_from_slice(bytes);
}

/// `convert_<T>_sat_rte(x)` into [lo, hi] as an integer: NaN gives 0 (6.2.3.3).
fn sat_rte(x: f32, lo: f32, hi: f32) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(lo, hi) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_required_formats_are_supported() {
        // Table 5.8: the formats every full-profile device must support.
        for order in [CL_RGBA, CL_BGRA] {
            assert!(Format::new(order, CL_UNORM_INT8).is_supported());
        }
        for t in [
            CL_UNORM_INT8,
            CL_UNORM_INT16,
            CL_SIGNED_INT8,
            CL_SIGNED_INT16,
            CL_SIGNED_INT32,
            CL_UNSIGNED_INT8,
            CL_UNSIGNED_INT16,
            CL_UNSIGNED_INT32,
            CL_HALF_FLOAT,
            CL_FLOAT,
        ] {
            assert!(Format::new(CL_RGBA, t).is_supported());
        }
        assert!(!Format::new(CL_RGB, CL_UNORM_INT8).is_supported());
        assert!(!Format::new(CL_BGRA, CL_FLOAT).is_supported());
        assert!(!Format::new(CL_INTENSITY, CL_SIGNED_INT8).is_supported());
        assert!(!Format::new(CL_RGBA, CL_UNORM_SHORT_565).is_supported());
        assert_eq!(Format::supported().len(), 83);
    }

    #[test]
    fn element_sizes() {
        assert_eq!(Format::new(CL_RGBA, CL_FLOAT).element_size(), 16);
        assert_eq!(Format::new(CL_RG, CL_HALF_FLOAT).element_size(), 4);
        assert_eq!(Format::new(CL_RGB, CL_UNORM_SHORT_565).element_size(), 2);
        assert_eq!(Format::new(CL_RGB, CL_UNORM_INT_101010).element_size(), 4);
        assert_eq!(Format::new(CL_LUMINANCE, CL_UNORM_INT16).element_size(), 2);
    }

    #[test]
    fn normalized_reads_follow_section_8_3_1() {
        let f = Format::new(CL_RGBA, CL_UNORM_INT8);
        assert_eq!(
            f.decode_float(&[0, 255, 51, 128]),
            [0.0, 1.0, 0.2, 128.0 / 255.0]
        );
        let s = Format::new(CL_RG, CL_SNORM_INT8);
        // -128 / 127 is below -1: max(-1, ...) gives -1.
        assert_eq!(s.decode_float(&[0x80, 127]), [-1.0, 1.0, 0.0, 1.0]);
        let bgra = Format::new(CL_BGRA, CL_UNSIGNED_INT8);
        assert_eq!(bgra.decode_int(&[1, 2, 3, 4]), [3, 2, 1, 4]);
        let argb = Format::new(CL_ARGB, CL_SIGNED_INT8);
        assert_eq!(argb.decode_int(&[0xff, 2, 3, 4]), [2, 3, 4, u32::MAX]);
        let l = Format::new(CL_LUMINANCE, CL_FLOAT);
        assert_eq!(l.decode_float(&2.5f32.to_ne_bytes()), [2.5, 2.5, 2.5, 1.0]);
        let i = Format::new(CL_INTENSITY, CL_UNORM_INT16);
        assert_eq!(i.decode_float(&65535u16.to_ne_bytes()), [1.0; 4]);
        let a = Format::new(CL_A, CL_UNORM_INT8);
        assert_eq!(a.decode_float(&[255]), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(a.border_float(), [0.0; 4]);
        assert_eq!(
            Format::new(CL_R, CL_FLOAT).border_float(),
            [0.0, 0.0, 0.0, 1.0]
        );
    }

    /// The per-channel conversions as first written (one data-type match per channel), kept
    /// as the reference the per-element ones must reproduce bit for bit.
    fn reference_channel(f: Format, texel: &[u8], c: usize) -> (u32, f32) {
        if let Some(fields) = f.packed_fields() {
            let (shift, bits) = fields[c.min(2)];
            let raw = (f.packed_word(texel) >> shift) & ((1 << bits) - 1);
            return (raw, raw as f32 / ((1u32 << bits) - 1) as f32);
        }
        let size = f.channel_size();
        let b = &texel[c * size..(c + 1) * size];
        match f.data_type {
            CL_UNORM_INT8 => (u32::from(b[0]), f32::from(b[0]) / 255.0),
            CL_UNSIGNED_INT8 => (u32::from(b[0]), f32::from(b[0])),
            CL_SNORM_INT8 => (
                b[0] as i8 as i32 as u32,
                (f32::from(b[0] as i8) / 127.0).max(-1.0),
            ),
            CL_SIGNED_INT8 => (b[0] as i8 as i32 as u32, f32::from(b[0] as i8)),
            CL_UNORM_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => {
                let v = u16::from_ne_bytes([b[0], b[1]]);
                let x = match f.data_type {
                    CL_UNORM_INT16 => f32::from(v) / 65535.0,
                    CL_HALF_FLOAT => clift_half_to_f32(v),
                    _ => f32::from(v),
                };
                (u32::from(v), x)
            }
            CL_SNORM_INT16 | CL_SIGNED_INT16 => {
                let v = i16::from_ne_bytes([b[0], b[1]]);
                let x = if f.data_type == CL_SNORM_INT16 {
                    (f32::from(v) / 32767.0).max(-1.0)
                } else {
                    f32::from(v)
                };
                (v as i32 as u32, x)
            }
            CL_SIGNED_INT32 => {
                let v = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
                (v as u32, v as f32)
            }
            CL_UNSIGNED_INT32 => {
                let v = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
                (v, v as f32)
            }
            _ => {
                let v = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
                (v, f32::from_bits(v))
            }
        }
    }

    #[test]
    fn per_element_decoding_matches_the_per_channel_reference_for_every_format() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for f in Format::supported() {
            for _ in 0..256 {
                let mut texel = [0u8; 16];
                for b in &mut texel {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    *b = seed as u8;
                }
                let (mut float, mut int) = ([0.0f32, 0.0, 0.0, 1.0], [0u32, 0, 0, 1]);
                for (lane, c) in f.channel_of().into_iter().enumerate() {
                    if let Some(c) = c {
                        (int[lane], float[lane]) = reference_channel(f, &texel, c);
                    }
                }
                let got = f.decode_float(&texel).map(f32::to_bits);
                assert_eq!(got, float.map(f32::to_bits), "{f:?} {texel:?}");
                assert_eq!(f.decode_int(&texel), int, "{f:?} {texel:?}");
                // Writing what was read stores the same bytes for the exact formats.
                if matches!(f.data_type, CL_UNORM_INT8 | CL_UNORM_INT16 | CL_FLOAT) {
                    let mut back = [0u8; 16];
                    f.encode_float(f.decode_float(&texel), &mut back);
                    let n = f.element_size();
                    assert_eq!(back[..n], texel[..n], "{f:?}");
                }
            }
        }
    }

    #[test]
    fn packed_formats_round_trip() {
        let f = Format::new(CL_RGB, CL_UNORM_SHORT_565);
        let mut b = [0u8; 2];
        f.encode_float([1.0, 0.0, 1.0, 1.0], &mut b);
        assert_eq!(u16::from_ne_bytes(b), (0x1f << 11) | 0x1f);
        assert_eq!(f.decode_float(&b), [1.0, 0.0, 1.0, 1.0]);
        // RGB has no alpha: it reads as 1 whatever the blue channel holds.
        assert_eq!(f.decode_float(&[0, 0])[3], 1.0);
        let t = Format::new(CL_RGB, CL_UNORM_INT_101010);
        let mut w = [0u8; 4];
        t.encode_float([0.0, 1.0, 0.5, 0.0], &mut w);
        // 0.5 * 1023 = 511.5 rounds to the even 512.
        assert_eq!(u32::from_ne_bytes(w), (1023 << 10) | 512);
    }

    #[test]
    fn writes_saturate_and_round_to_nearest_even() {
        let f = Format::new(CL_RGBA, CL_UNORM_INT8);
        let mut b = [0u8; 4];
        // 0.5 * 255 = 127.5 -> 128 (even); NaN -> 0; above 1 -> 255; below 0 -> 0.
        f.encode_float([0.5, f32::NAN, 7.0, -3.0], &mut b);
        assert_eq!(b, [128, 0, 255, 0]);
        let s = Format::new(CL_R, CL_SNORM_INT16);
        let mut h = [0u8; 2];
        s.encode_float([-2.0, 0.0, 0.0, 0.0], &mut h);
        assert_eq!(i16::from_ne_bytes(h), -32768);
        let i = Format::new(CL_RGBA, CL_SIGNED_INT8);
        i.encode_int([300, -300, 5, -5], &mut b);
        assert_eq!(b, [127, 0x80, 5, 0xfb]);
        let u = Format::new(CL_BGRA, CL_UNSIGNED_INT8);
        u.encode_uint([1, 2, 3, 999], &mut b);
        assert_eq!(b, [3, 2, 1, 255]);
        let half = Format::new(CL_R, CL_HALF_FLOAT);
        half.encode_float([1.0 + 1.0 / 4096.0, 0.0, 0.0, 0.0], &mut h);
        // Halfway between 1.0 and the next half: rounds to the even 1.0 (0x3c00).
        assert_eq!(u16::from_ne_bytes(h), 0x3c00);
    }
}
