//! Samplers and chapter 8's image addressing and filtering: from a coordinate to the
//! elements a read uses, and the weights a linear filter gives them.
//!
//! A `sampler_t` is 32 bits in clift: the `CLK_*` constants below, or-ed together as the
//! kernel writes them; the host's sampler objects encode the same way.

/// `CLK_NORMALIZED_COORDS_FALSE`/`_TRUE`.
pub const CLK_NORMALIZED_COORDS_FALSE: u32 = 0;
pub const CLK_NORMALIZED_COORDS_TRUE: u32 = 1;
/// The addressing modes, in bits 1..=3.
pub const CLK_ADDRESS_NONE: u32 = 0;
pub const CLK_ADDRESS_CLAMP_TO_EDGE: u32 = 2;
pub const CLK_ADDRESS_CLAMP: u32 = 4;
pub const CLK_ADDRESS_REPEAT: u32 = 6;
pub const CLK_ADDRESS_MIRRORED_REPEAT: u32 = 8;
/// The filter modes.
pub const CLK_FILTER_NEAREST: u32 = 0x10;
pub const CLK_FILTER_LINEAR: u32 = 0x20;

const ADDRESS_MASK: u32 = 0xe;

/// The sampler constants by name, for the compiler.
pub const KERNEL_CONSTANTS: [(&str, u32); 9] = [
    ("CLK_NORMALIZED_COORDS_FALSE", CLK_NORMALIZED_COORDS_FALSE),
    ("CLK_NORMALIZED_COORDS_TRUE", CLK_NORMALIZED_COORDS_TRUE),
    ("CLK_ADDRESS_NONE", CLK_ADDRESS_NONE),
    ("CLK_ADDRESS_CLAMP_TO_EDGE", CLK_ADDRESS_CLAMP_TO_EDGE),
    ("CLK_ADDRESS_CLAMP", CLK_ADDRESS_CLAMP),
    ("CLK_ADDRESS_REPEAT", CLK_ADDRESS_REPEAT),
    ("CLK_ADDRESS_MIRRORED_REPEAT", CLK_ADDRESS_MIRRORED_REPEAT),
    ("CLK_FILTER_NEAREST", CLK_FILTER_NEAREST),
    ("CLK_FILTER_LINEAR", CLK_FILTER_LINEAR),
];

/// The addressing modes of section 8.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addressing {
    None,
    ClampToEdge,
    Clamp,
    Repeat,
    MirroredRepeat,
}

/// A sampler's three properties, decoded from its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    pub normalized: bool,
    pub addressing: Addressing,
    pub linear: bool,
}

impl Sampler {
    /// The sampler of the sampler-less reads: unnormalized, `CLK_ADDRESS_NONE`, nearest.
    pub const NONE: Sampler = Sampler {
        normalized: false,
        addressing: Addressing::None,
        linear: false,
    };

    pub fn from_bits(bits: u32) -> Sampler {
        Sampler {
            normalized: bits & CLK_NORMALIZED_COORDS_TRUE != 0,
            addressing: match bits & ADDRESS_MASK {
                CLK_ADDRESS_CLAMP_TO_EDGE => Addressing::ClampToEdge,
                CLK_ADDRESS_CLAMP => Addressing::Clamp,
                CLK_ADDRESS_REPEAT => Addressing::Repeat,
                CLK_ADDRESS_MIRRORED_REPEAT => Addressing::MirroredRepeat,
                _ => Addressing::None,
            },
            linear: bits & CLK_FILTER_LINEAR != 0,
        }
    }

    pub fn bits(self) -> u32 {
        let address = match self.addressing {
            Addressing::None => CLK_ADDRESS_NONE,
            Addressing::ClampToEdge => CLK_ADDRESS_CLAMP_TO_EDGE,
            Addressing::Clamp => CLK_ADDRESS_CLAMP,
            Addressing::Repeat => CLK_ADDRESS_REPEAT,
            Addressing::MirroredRepeat => CLK_ADDRESS_MIRRORED_REPEAT,
        };
        let filter = if self.linear {
            CLK_FILTER_LINEAR
        } else {
            CLK_FILTER_NEAREST
        };
        u32::from(self.normalized) | address | filter
    }

    /// The repeat modes are defined for normalized coordinates only; with unnormalized
    /// ones (undefined by 6.12.14.1) clift clamps to the border instead, never reading
    /// outside the image.
    fn repeats(self) -> bool {
        self.normalized
            && matches!(
                self.addressing,
                Addressing::Repeat | Addressing::MirroredRepeat
            )
    }

    /// The element index along one axis of `n` elements for coordinate `s` with nearest
    /// filtering; `None`: outside the image, where the border colour is read.
    pub fn nearest(self, s: f32, n: u32) -> Option<u32> {
        let nf = n as f32;
        let last = i64::from(n) - 1;
        if self.repeats() {
            let i = if self.addressing == Addressing::Repeat {
                let u = (s - s.floor()) * nf;
                let i = u.floor() as i64;
                if i > last { i - i64::from(n) } else { i }
            } else {
                let u = mirror(s) * nf;
                (u.floor() as i64).min(last)
            };
            return Some(i.clamp(0, last) as u32);
        }
        let u = if self.normalized { s * nf } else { s };
        self.address(u.floor() as i64, n)
    }

    /// Integer coordinates (always unnormalized): the addressing mode alone.
    pub fn nearest_int(self, i: i32, n: u32) -> Option<u32> {
        self.address(i64::from(i), n)
    }

    /// `CLK_ADDRESS_CLAMP_TO_EDGE` clamps; the other modes read the border outside (for
    /// `CLK_ADDRESS_NONE` the result there is undefined: the border is clift's answer).
    fn address(self, i: i64, n: u32) -> Option<u32> {
        let last = i64::from(n) - 1;
        if self.addressing == Addressing::ClampToEdge {
            return Some(i.clamp(0, last) as u32);
        }
        (0..=last).contains(&i).then_some(i as u32)
    }

    /// The two elements a linear filter blends along one axis and the weight of the second.
    pub fn linear_pair(self, s: f32, n: u32) -> (Option<u32>, Option<u32>, f32) {
        let nf = n as f32;
        let last = i64::from(n) - 1;
        if self.repeats() {
            let (i0, i1, a) = if self.addressing == Addressing::Repeat {
                let u = (s - s.floor()) * nf;
                let i0 = (u - 0.5).floor() as i64;
                let (mut i0, mut i1) = (i0, i0 + 1);
                if i0 < 0 {
                    i0 += i64::from(n);
                }
                if i1 > last {
                    i1 -= i64::from(n);
                }
                (i0, i1, frac(u - 0.5))
            } else {
                let u = mirror(s) * nf;
                let i0 = (u - 0.5).floor() as i64;
                (i0.max(0), (i0 + 1).min(last), frac(u - 0.5))
            };
            let clamp = |i: i64| Some(i.clamp(0, last) as u32);
            return (clamp(i0), clamp(i1), a);
        }
        let u = if self.normalized { s * nf } else { s };
        let i0 = (u - 0.5).floor() as i64;
        (self.address(i0, n), self.address(i0 + 1, n), frac(u - 0.5))
    }
}

/// `MIRRORED_REPEAT`'s fold: `s' = fabs(s - 2.0f * rint(0.5f * s))`.
fn mirror(s: f32) -> f32 {
    (s - 2.0 * (0.5 * s).round_ties_even()).abs()
}

fn frac(x: f32) -> f32 {
    x - x.floor()
}

/// The array layer of coordinate `w`: `clamp(rint(w), 0, image_array_size - 1)` (8.4,
/// "Selecting an Image from an Image Array"): rounded to nearest, ties to even (so 4.5
/// selects layer 4), whatever the sampler's addressing and normalization; NaN selects 0.
pub fn layer(w: f32, layers: u32) -> u32 {
    (w.round_ties_even() as i64).clamp(0, i64::from(layers) - 1) as u32
}

/// An integer array-layer coordinate, clamped the same way.
pub fn layer_int(w: i32, layers: u32) -> u32 {
    i64::from(w).clamp(0, i64::from(layers) - 1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampler(bits: u32) -> Sampler {
        Sampler::from_bits(bits)
    }

    #[test]
    fn bits_round_trip() {
        for bits in [0, 1, 2, 4, 6, 8] {
            for filter in [CLK_FILTER_NEAREST, CLK_FILTER_LINEAR] {
                assert_eq!(sampler(bits | filter).bits(), bits | filter);
            }
        }
        assert_eq!(Sampler::NONE.bits(), CLK_FILTER_NEAREST);
    }

    #[test]
    fn nearest_addressing() {
        let edge = sampler(CLK_ADDRESS_CLAMP_TO_EDGE);
        assert_eq!(edge.nearest(-3.5, 4), Some(0));
        assert_eq!(edge.nearest(9.0, 4), Some(3));
        assert_eq!(edge.nearest(2.99, 4), Some(2));
        let clamp = sampler(CLK_ADDRESS_CLAMP);
        assert_eq!(clamp.nearest(-0.5, 4), None);
        assert_eq!(clamp.nearest(4.0, 4), None);
        assert_eq!(clamp.nearest(3.9, 4), Some(3));
        let norm = sampler(CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE);
        assert_eq!(norm.nearest(0.5, 4), Some(2));
        let repeat = sampler(CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT);
        // 1.25 wraps to 0.25 -> element 1 of 4; -0.25 wraps to 0.75 -> element 3.
        assert_eq!(repeat.nearest(1.25, 4), Some(1));
        assert_eq!(repeat.nearest(-0.25, 4), Some(3));
        let mirrored = sampler(CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT);
        // 1.25 mirrors to 0.75 -> element 3; -0.25 mirrors to 0.25 -> element 1.
        assert_eq!(mirrored.nearest(1.25, 4), Some(3));
        assert_eq!(mirrored.nearest(-0.25, 4), Some(1));
        assert_eq!(mirrored.nearest(2.0, 4), Some(0));
    }

    #[test]
    fn linear_pairs() {
        let edge = sampler(CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR);
        // u = 1.75: i0 = floor(1.25) = 1, i1 = 2, a = 0.25.
        assert_eq!(edge.linear_pair(1.75, 4), (Some(1), Some(2), 0.25));
        assert_eq!(edge.linear_pair(0.25, 4), (Some(0), Some(0), 0.75));
        let clamp = sampler(CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR);
        assert_eq!(clamp.linear_pair(0.25, 4), (None, Some(0), 0.75));
        let repeat = sampler(CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR);
        // s = 0.0625 -> u = 0.25: i0 = -1 wraps to 3, i1 = 0, a = 0.75.
        assert_eq!(repeat.linear_pair(0.0625, 4), (Some(3), Some(0), 0.75));
        let mirrored =
            sampler(CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR);
        assert_eq!(mirrored.linear_pair(0.0625, 4), (Some(0), Some(0), 0.75));
    }

    #[test]
    fn layers_round_to_nearest_even_and_clamp() {
        assert_eq!(layer(1.5, 4), 2);
        assert_eq!(layer(2.5, 4), 2);
        assert_eq!(layer(0.5, 4), 0);
        assert_eq!(layer(-0.5, 4), 0);
        assert_eq!(layer(2.51, 4), 3);
        assert_eq!(layer(1.49, 4), 1);
        assert_eq!(layer(f32::NAN, 4), 0);
        assert_eq!(layer(-7.0, 4), 0);
        assert_eq!(layer(70.0, 4), 3);
        assert_eq!(layer_int(-1, 4), 0);
        assert_eq!(layer_int(9, 4), 3);
    }
}
