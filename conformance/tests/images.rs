//! The `images` suite: image objects, samplers and the image commands through the loader,
//! and kernel reads and writes compared with a host reference of chapter 8 (addressing,
//! filtering) and section 8.3 (conversions) for every supported format, addressing mode,
//! filter and coordinate mode.
//!
//! The reference here is written from the specification's formulas independently of
//! clift's: element decoding is table-driven and weights are computed in double.

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use clift_conformance::kernel_fixture::{Fixture, Kernel, Mem, Rng};
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

// ---------------------------------------------------------------------------------------
// Formats, as the reference understands them.

/// The channel orders and types OpenCL 1.2 defines, paired as Table 5.6 allows.
fn all_formats() -> Vec<cl_image_format> {
    let orders = [
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
    let types = [
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
    let mut out = Vec::new();
    for order in orders {
        for ty in types {
            let packed = matches!(
                ty,
                CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010
            );
            let eight_bit = matches!(
                ty,
                CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8
            );
            let normalized_or_float = matches!(
                ty,
                CL_UNORM_INT8
                    | CL_UNORM_INT16
                    | CL_SNORM_INT8
                    | CL_SNORM_INT16
                    | CL_HALF_FLOAT
                    | CL_FLOAT
            );
            let ok = match order {
                CL_RGB => packed,
                _ if packed => false,
                CL_BGRA | CL_ARGB => eight_bit,
                CL_INTENSITY | CL_LUMINANCE => normalized_or_float,
                _ => true,
            };
            if ok {
                out.push(cl_image_format {
                    image_channel_order: order,
                    image_channel_data_type: ty,
                });
            }
        }
    }
    out
}

/// How a kernel reads a format: `read_imagef`, `read_imagei` or `read_imageui`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Float,
    Int,
    Uint,
}

fn class(f: &cl_image_format) -> Class {
    match f.image_channel_data_type {
        CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => Class::Int,
        CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => Class::Uint,
        _ => Class::Float,
    }
}

/// The components each stored channel holds, in storage order (`i`: intensity, `l`:
/// luminance).
fn stored(order: cl_channel_order) -> &'static [char] {
    match order {
        CL_R => &['r'],
        CL_A => &['a'],
        CL_RG => &['r', 'g'],
        CL_RA => &['r', 'a'],
        CL_RGB => &['r', 'g', 'b'],
        CL_RGBA => &['r', 'g', 'b', 'a'],
        CL_BGRA => &['b', 'g', 'r', 'a'],
        CL_ARGB => &['a', 'r', 'g', 'b'],
        CL_INTENSITY => &['i'],
        _ => &['l'],
    }
}

fn channel_bytes(ty: cl_channel_type) -> usize {
    match ty {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
        _ => 2,
    }
}

fn element_size(f: &cl_image_format) -> usize {
    match f.image_channel_data_type {
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
        CL_UNORM_INT_101010 => 4,
        ty => stored(f.image_channel_order).len() * channel_bytes(ty),
    }
}

/// IEEE half bits to a double.
fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// An element as (r, g, b, a): floats for `read_imagef`, integers (as f64) for the others.
fn reference_texel(f: &cl_image_format, bytes: &[u8]) -> [f64; 4] {
    let ty = f.image_channel_data_type;
    let mut rgba = [0.0, 0.0, 0.0, 1.0];
    if let Some(fields) = match ty {
        CL_UNORM_SHORT_565 => Some([(11, 5), (5, 6), (0, 5)]),
        CL_UNORM_SHORT_555 => Some([(10, 5), (5, 5), (0, 5)]),
        CL_UNORM_INT_101010 => Some([(20, 10), (10, 10), (0, 10)]),
        _ => None,
    } {
        let word = if bytes.len() == 2 {
            u32::from(u16::from_le_bytes([bytes[0], bytes[1]]))
        } else {
            u32::from_le_bytes(bytes.try_into().unwrap())
        };
        for (lane, (shift, bits)) in fields.into_iter().enumerate() {
            let max = (1u32 << bits) - 1;
            rgba[lane] = f64::from((word >> shift) & max) / f64::from(max);
        }
        return rgba;
    }
    let size = channel_bytes(ty);
    for (c, &which) in stored(f.image_channel_order).iter().enumerate() {
        let b = &bytes[c * size..(c + 1) * size];
        let v = match ty {
            CL_UNORM_INT8 => f64::from(b[0]) / 255.0,
            CL_SNORM_INT8 => (f64::from(b[0] as i8) / 127.0).max(-1.0),
            CL_UNORM_INT16 => f64::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
            CL_SNORM_INT16 => (f64::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0).max(-1.0),
            CL_SIGNED_INT8 => f64::from(b[0] as i8),
            CL_SIGNED_INT16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
            CL_SIGNED_INT32 => f64::from(i32::from_le_bytes(b.try_into().unwrap())),
            CL_UNSIGNED_INT8 => f64::from(b[0]),
            CL_UNSIGNED_INT16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
            CL_UNSIGNED_INT32 => f64::from(u32::from_le_bytes(b.try_into().unwrap())),
            CL_HALF_FLOAT => half_to_f64(u16::from_le_bytes([b[0], b[1]])),
            _ => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
        };
        match which {
            'r' => rgba[0] = v,
            'g' => rgba[1] = v,
            'b' => rgba[2] = v,
            'a' => rgba[3] = v,
            'i' => rgba = [v; 4],
            _ => rgba = [v, v, v, 1.0],
        }
    }
    rgba
}

/// The border colour: (0, 0, 0, 0) for orders with alpha, else (0, 0, 0, 1).
fn border(f: &cl_image_format) -> [f64; 4] {
    let has_alpha = matches!(
        f.image_channel_order,
        CL_A | CL_RA | CL_RGBA | CL_BGRA | CL_ARGB | CL_INTENSITY
    );
    [0.0, 0.0, 0.0, if has_alpha { 0.0 } else { 1.0 }]
}

/// Random element bytes that are valid values of the format (finite floats and halves,
/// since filtering is undefined over INF and NaN).
fn random_elements(f: &cl_image_format, count: usize, rng: &mut Rng) -> Vec<u8> {
    let size = element_size(f);
    let mut out = Vec::with_capacity(count * size);
    for _ in 0..count {
        match f.image_channel_data_type {
            CL_FLOAT => {
                for _ in 0..size / 4 {
                    out.extend_from_slice(&rng.float(-4.0, 4.0).to_le_bytes());
                }
            }
            CL_HALF_FLOAT => {
                for _ in 0..size / 2 {
                    // A finite half: exponent field below 31.
                    let bits = (rng.next_u64() as u16) & 0xbfff;
                    out.extend_from_slice(&bits.to_le_bytes());
                }
            }
            _ => out.extend((0..size).map(|_| rng.next_u64() as u8)),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Images through the API.

fn desc(image_type: cl_mem_object_type, size: [usize; 3], buffer: cl_mem) -> cl_image_desc {
    let arrays = [CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY];
    let array_index = if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
        1
    } else {
        2
    };
    cl_image_desc {
        image_type,
        image_width: size[0],
        image_height: if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            0
        } else {
            size[1]
        },
        image_depth: if image_type == CL_MEM_OBJECT_IMAGE3D {
            size[2]
        } else {
            0
        },
        image_array_size: if arrays.contains(&image_type) {
            size[array_index]
        } else {
            0
        },
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer,
    }
}

/// `clCreateImage`: the image or the error.
fn create_image(
    fx: &Fixture,
    flags: cl_mem_flags,
    format: &cl_image_format,
    desc: &cl_image_desc,
    host: *mut c_void,
) -> Result<Mem, cl_int> {
    let create = {
        let api = api();
        entry!(api.clCreateImage)
    };
    let mut status = 0;
    // SAFETY: valid format and descriptor; `host` holds the image when given.
    let mem = unsafe { create(fx.context, flags, format, desc, host, &mut status) };
    if status == CL_SUCCESS {
        assert!(!mem.is_null());
        Ok(Mem(mem))
    } else {
        assert!(mem.is_null());
        Err(status)
    }
}

/// An image with its contents, packed, as the host wrote them.
struct TestImage {
    mem: Mem,
    /// Keeps a 1D buffer image's buffer alive.
    _buffer: Option<Mem>,
    image_type: cl_mem_object_type,
    format: cl_image_format,
    /// The API's size: width, height or layers, depth or layers.
    size: [usize; 3],
    data: Vec<u8>,
}

impl TestImage {
    fn new(
        fx: &Fixture,
        image_type: cl_mem_object_type,
        format: cl_image_format,
        size: [usize; 3],
        rng: &mut Rng,
    ) -> TestImage {
        let count = size[0] * size[1] * size[2];
        let mut data = random_elements(&format, count, rng);
        let (mem, buffer) = if image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
            let buffer = fx.buffer(&data);
            let d = desc(image_type, size, buffer.0);
            let image = create_image(fx, 0, &format, &d, null_mut()).expect("clCreateImage");
            (image, Some(buffer))
        } else {
            let d = desc(image_type, size, null_mut());
            let flags = CL_MEM_COPY_HOST_PTR;
            let image = create_image(fx, flags, &format, &d, data.as_mut_ptr().cast())
                .expect("clCreateImage");
            (image, None)
        };
        TestImage {
            mem,
            _buffer: buffer,
            image_type,
            format,
            size,
            data,
        }
    }

    /// The extent along the reference's x, y, z (z: depth or layers).
    fn extent(&self) -> [usize; 3] {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [self.size[0], 1, self.size[1]],
            _ => self.size,
        }
    }

    fn texel(&self, idx: [usize; 3]) -> [f64; 4] {
        let [w, h, _] = self.extent();
        let size = element_size(&self.format);
        let at = ((idx[2] * h + idx[1]) * w + idx[0]) * size;
        reference_texel(&self.format, &self.data[at..at + size])
    }

    fn axes(&self) -> usize {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY => 2,
            CL_MEM_OBJECT_IMAGE3D => 3,
            _ => 1,
        }
    }

    /// The elements coordinate `a` ranges over (an axis, or an array's layers); `None` for
    /// a coordinate the image type does not use.
    fn coordinate_extent(&self, a: usize) -> Option<usize> {
        let extent = self.extent();
        if Some(a) == self.layer_coordinate() {
            Some(extent[2])
        } else if a < self.axes() {
            Some(extent[a])
        } else {
            None
        }
    }

    fn layer_coordinate(&self) -> Option<usize> {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D_ARRAY => Some(1),
            CL_MEM_OBJECT_IMAGE2D_ARRAY => Some(2),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The reference of chapter 8.

#[derive(Clone, Copy, Debug)]
struct SamplerSpec {
    normalized: bool,
    addressing: cl_addressing_mode,
    linear: bool,
}

/// Chapter 8's index of one axis with nearest filtering (`None`: the border).
fn nearest_index(s: f32, n: usize, sp: SamplerSpec) -> Option<usize> {
    let nf = n as f32;
    let last = n as i64 - 1;
    let i = match sp.addressing {
        CL_ADDRESS_REPEAT => {
            let u = (s - s.floor()) * nf;
            let i = u.floor() as i64;
            if i > last { i - n as i64 } else { i }
        }
        CL_ADDRESS_MIRRORED_REPEAT => {
            let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
            ((sp * nf).floor() as i64).min(last)
        }
        mode => {
            let u = if sp.normalized { s * nf } else { s };
            let i = u.floor() as i64;
            if mode == CL_ADDRESS_CLAMP_TO_EDGE {
                i.clamp(0, last)
            } else if (0..=last).contains(&i) {
                i
            } else {
                return None;
            }
        }
    };
    Some(i as usize)
}

/// Chapter 8's pair of indices and the weight of the second, for linear filtering.
fn linear_pair(s: f32, n: usize, sp: SamplerSpec) -> (Option<usize>, Option<usize>, f64) {
    let nf = n as f32;
    let last = n as i64 - 1;
    let frac = |x: f32| f64::from(x - x.floor());
    let some = |i: i64| Some(i as usize);
    match sp.addressing {
        CL_ADDRESS_REPEAT => {
            let u = (s - s.floor()) * nf;
            let mut i0 = (u - 0.5).floor() as i64;
            let mut i1 = i0 + 1;
            if i0 < 0 {
                i0 += n as i64;
            }
            if i1 > last {
                i1 -= n as i64;
            }
            (some(i0), some(i1), frac(u - 0.5))
        }
        CL_ADDRESS_MIRRORED_REPEAT => {
            let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
            let u = sp * nf;
            let i0 = (u - 0.5).floor() as i64;
            (some(i0.max(0)), some((i0 + 1).min(last)), frac(u - 0.5))
        }
        mode => {
            let u = if sp.normalized { s * nf } else { s };
            let i0 = (u - 0.5).floor() as i64;
            let address = |i: i64| {
                if mode == CL_ADDRESS_CLAMP_TO_EDGE {
                    some(i.clamp(0, last))
                } else if (0..=last).contains(&i) {
                    some(i)
                } else {
                    None
                }
            };
            (address(i0), address(i0 + 1), frac(u - 0.5))
        }
    }
}

/// What `read_image{f,i,ui}(image, sampler, coords)` returns, per chapter 8.
fn reference_read(img: &TestImage, sp: SamplerSpec, coords: [f32; 4]) -> [f64; 4] {
    let extent = img.extent();
    let mut base = [0usize; 3];
    if let Some(l) = img.layer_coordinate() {
        // 8.4: layer = clamp(rint(w), 0, image_array_size - 1), ties to even (the
        // coordinates include halves: 4.5 is layer 4, 5.5 layer 6).
        base[2] = (coords[l].round_ties_even() as i64).clamp(0, extent[2] as i64 - 1) as usize;
    }
    let axes = img.axes();
    let fetch = |idx: Option<[usize; 3]>| match idx {
        Some(idx) => img.texel(idx),
        None => border(&img.format),
    };
    if !sp.linear || class(&img.format) != Class::Float {
        let mut idx = Some(base);
        for a in 0..axes {
            let i = nearest_index(coords[a], extent[a], sp);
            idx = idx.zip(i).map(|(mut idx, i)| {
                idx[a] = i;
                idx
            });
        }
        return fetch(idx);
    }
    let pairs: Vec<_> = (0..axes)
        .map(|a| linear_pair(coords[a], extent[a], sp))
        .collect();
    let mut out = [0.0; 4];
    for corner in 0..1usize << axes {
        let mut weight = 1.0;
        let mut idx = Some(base);
        for (a, &(i0, i1, t)) in pairs.iter().enumerate() {
            let (i, w) = if corner >> a & 1 == 1 {
                (i1, t)
            } else {
                (i0, 1.0 - t)
            };
            weight *= w;
            idx = idx.zip(i).map(|(mut idx, i)| {
                idx[a] = i;
                idx
            });
        }
        let t = fetch(idx);
        for c in 0..4 {
            out[c] += weight * t[c];
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Kernels.

/// The OpenCL C type of a kind's coordinates, its float form, and the image type.
fn kernel_types(image_type: cl_mem_object_type) -> (&'static str, &'static str, &'static str) {
    match image_type {
        CL_MEM_OBJECT_IMAGE1D => ("image1d_t", "float", "int"),
        CL_MEM_OBJECT_IMAGE1D_BUFFER => ("image1d_buffer_t", "float", "int"),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => ("image1d_array_t", "float2", "int2"),
        CL_MEM_OBJECT_IMAGE2D => ("image2d_t", "float2", "int2"),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => ("image2d_array_t", "float4", "int4"),
        _ => ("image3d_t", "float4", "int4"),
    }
}

/// Reads with a sampler argument at float coordinates (`read_f`, `read_i`, `read_ui`), at
/// integer coordinates (`read_f_int`, ...) and without a sampler (`read_f_plain`, ...).
/// Coordinates arrive as float4 / int4 and are narrowed to the kind's type.
fn read_kernels(fx: &Fixture, image_type: cl_mem_object_type) -> Kernel {
    let (image, float_coord, int_coord) = kernel_types(image_type);
    let narrow = |v: &str, t: &str| match t {
        "float" | "int" => format!("{v}.x"),
        "float2" | "int2" => format!("{v}.xy"),
        _ => v.to_string(),
    };
    let mut source = String::new();
    for (suffix, result) in [("f", "float4"), ("i", "int4"), ("ui", "uint4")] {
        let fc = narrow("c[i]", float_coord);
        let ic = narrow("d[i]", int_coord);
        if image_type != CL_MEM_OBJECT_IMAGE1D_BUFFER {
            source += &format!(
                "kernel void read_{suffix}(read_only {image} img, sampler_t s,
                    global const float4 *c, global {result} *out) {{
                    size_t i = get_global_id(0);
                    out[i] = read_image{suffix}(img, s, {fc});
                }}
                kernel void read_{suffix}_int(read_only {image} img, sampler_t s,
                    global const int4 *d, global {result} *out) {{
                    size_t i = get_global_id(0);
                    out[i] = read_image{suffix}(img, s, {ic});
                }}\n"
            );
        }
        source += &format!(
            "kernel void read_{suffix}_plain(read_only {image} img,
                global const int4 *d, global {result} *out) {{
                size_t i = get_global_id(0);
                out[i] = read_image{suffix}(img, {ic});
            }}\n"
        );
    }
    let first = if image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        c"read_f_plain"
    } else {
        c"read_f"
    };
    fx.kernel(&source, first, c"")
}

fn suffix(c: Class) -> &'static str {
    match c {
        Class::Float => "f",
        Class::Int => "i",
        Class::Uint => "ui",
    }
}

fn create_sampler(fx: &Fixture, sp: SamplerSpec) -> cl_sampler {
    let create = {
        let api = api();
        entry!(api.clCreateSampler)
    };
    let mut status = 0;
    let filter = if sp.linear {
        CL_FILTER_LINEAR
    } else {
        CL_FILTER_NEAREST
    };
    // SAFETY: plain values and a valid errcode_ret.
    let sampler = unsafe {
        create(
            fx.context,
            cl_bool::from(sp.normalized),
            sp.addressing,
            filter,
            &mut status,
        )
    };
    assert_eq!(status, CL_SUCCESS, "clCreateSampler({sp:?})");
    sampler
}

fn release_sampler(s: cl_sampler) {
    let release = {
        let api = api();
        entry!(api.clReleaseSampler)
    };
    // SAFETY: a live sampler.
    assert_eq!(unsafe { release(s) }, CL_SUCCESS);
}

/// Whether the spec defines this sampler's results (the repeat modes need normalized
/// coordinates; read_imagei/ui need nearest filtering).
fn defined(sp: SamplerSpec, c: Class) -> bool {
    let repeats = matches!(
        sp.addressing,
        CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT
    );
    (!repeats || sp.normalized) && (!sp.linear || c == Class::Float)
}

/// Every sampler combination.
fn samplers() -> Vec<SamplerSpec> {
    let mut out = Vec::new();
    for normalized in [false, true] {
        for addressing in [
            CL_ADDRESS_NONE,
            CL_ADDRESS_CLAMP_TO_EDGE,
            CL_ADDRESS_CLAMP,
            CL_ADDRESS_REPEAT,
            CL_ADDRESS_MIRRORED_REPEAT,
        ] {
            for linear in [false, true] {
                out.push(SamplerSpec {
                    normalized,
                    addressing,
                    linear,
                });
            }
        }
    }
    out
}

/// Random coordinates covering the image, its border and beyond, plus element centres and
/// edges (normalized when asked).
fn coordinates(img: &TestImage, normalized: bool, count: usize, rng: &mut Rng) -> Vec<[f32; 4]> {
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let mut c = [0.0f32; 4];
        for (a, slot) in c.iter_mut().enumerate().take(3) {
            let n = img.coordinate_extent(a).unwrap_or(1) as f32;
            let v = if k % 4 == 0 {
                // An element centre or edge.
                (rng.int(-2, n as i32 + 2) as f32) + if k % 8 == 0 { 0.5 } else { 0.0 }
            } else {
                rng.float(-1.5 * n, 2.5 * n)
            };
            let is_layer = Some(a) == img.layer_coordinate();
            *slot = if normalized && !is_layer { v / n } else { v };
        }
        out.push(c);
    }
    out
}

/// The lanes a kernel wrote, as f64.
fn read_results(fx: &Fixture, out: &Mem, count: usize, c: Class) -> Vec<[f64; 4]> {
    let words: Vec<u32> = fx.read(out, count * 4);
    words
        .chunks_exact(4)
        .map(|w| {
            let v = |x: u32| match c {
                Class::Float => f64::from(f32::from_bits(x)),
                Class::Int => f64::from(x as i32),
                Class::Uint => f64::from(x),
            };
            [v(w[0]), v(w[1]), v(w[2]), v(w[3])]
        })
        .collect()
}

/// Compares a kernel's colour with the reference: exact for integers, 1.5 ulp (section
/// 8.3.1.1's bound) for nearest float reads, a small relative error for linear filtering,
/// whose precision the spec leaves open.
fn close(got: [f64; 4], want: [f64; 4], c: Class, linear: bool) -> bool {
    (0..4).all(|i| {
        let (g, w) = (got[i], want[i]);
        if c != Class::Float {
            return g == w;
        }
        if w.is_nan() {
            return g.is_nan();
        }
        let ulp = f64::from(f32::EPSILON) * w.abs().max(f64::from(f32::MIN_POSITIVE));
        let tolerance = if linear {
            1e-5 * (1.0 + w.abs())
        } else {
            1.5 * ulp
        };
        (g - w).abs() <= tolerance
    })
}

/// Runs every defined sampler over `img` at random coordinates and compares with the
/// reference; also integer coordinates and sampler-less reads. Returns the reads checked.
fn check_reads(fx: &Fixture, kernels: &Kernel, img: &TestImage, rng: &mut Rng) -> usize {
    let c = class(&img.format);
    let count = 64;
    let out = fx.filled(0u32, count * 4);
    let mut checked = 0;
    let name = |k: &str| format!("read_{}{k}", suffix(c));
    if img.image_type != CL_MEM_OBJECT_IMAGE1D_BUFFER {
        let float_reads = kernels.sibling(&name(""));
        for sp in samplers().into_iter().filter(|&sp| defined(sp, c)) {
            let coords = coordinates(img, sp.normalized, count, rng);
            let flat: Vec<u32> = coords.iter().flatten().map(|f| f.to_bits()).collect();
            let coord_buf = fx.buffer(&flat);
            let sampler = create_sampler(fx, sp);
            float_reads
                .mem(0, &img.mem)
                .arg(1, sampler.cast::<c_void>())
                .mem(2, &coord_buf)
                .mem(3, &out);
            fx.run(&float_reads, None, &[count], None);
            let got = read_results(fx, &out, count, c);
            for (k, coords) in coords.iter().enumerate() {
                let want = reference_read(img, sp, *coords);
                assert!(
                    close(got[k], want, c, sp.linear),
                    "{:#x} {:?} {sp:?} at {coords:?}: got {:?}, want {want:?}",
                    img.image_type,
                    img.format_name(),
                    got[k]
                );
            }
            release_sampler(sampler);
            checked += count;
        }
    }
    // Integer coordinates: unnormalized, nearest, the clamp modes; and no sampler at all
    // (CLK_ADDRESS_NONE, whose out-of-range results are undefined: in range only).
    let int_coords: Vec<[i32; 4]> = (0..count)
        .map(|_| {
            let mut d = [0i32; 4];
            for (a, slot) in d.iter_mut().enumerate().take(3) {
                let n = img.coordinate_extent(a).unwrap_or(1) as i32;
                *slot = rng.int(-2, n + 2);
            }
            d
        })
        .collect();
    let flat: Vec<i32> = int_coords.iter().flatten().copied().collect();
    let coord_buf = fx.buffer(&flat);
    let to_float = |d: &[i32; 4]| d.map(|v| v as f32);
    let in_range = |d: &[i32; 4]| {
        (0..3).all(|a| {
            img.coordinate_extent(a)
                .is_none_or(|n| (0..n as i32).contains(&d[a]))
        })
    };
    if img.image_type != CL_MEM_OBJECT_IMAGE1D_BUFFER {
        let int_reads = kernels.sibling(&name("_int"));
        for addressing in [CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP] {
            let sp = SamplerSpec {
                normalized: false,
                addressing,
                linear: false,
            };
            let sampler = create_sampler(fx, sp);
            int_reads
                .mem(0, &img.mem)
                .arg(1, sampler.cast::<c_void>())
                .mem(2, &coord_buf)
                .mem(3, &out);
            fx.run(&int_reads, None, &[count], None);
            let got = read_results(fx, &out, count, c);
            for (k, d) in int_coords.iter().enumerate() {
                let want = reference_read(img, sp, to_float(d));
                assert!(
                    close(got[k], want, c, false),
                    "int {d:?} {sp:?}: {:?} vs {want:?}",
                    got[k]
                );
            }
            release_sampler(sampler);
            checked += count;
        }
    }
    let plain = kernels.sibling(&name("_plain"));
    plain.mem(0, &img.mem).mem(1, &coord_buf).mem(2, &out);
    fx.run(&plain, None, &[count], None);
    let got = read_results(fx, &out, count, c);
    let none = SamplerSpec {
        normalized: false,
        addressing: CL_ADDRESS_NONE,
        linear: false,
    };
    for (k, d) in int_coords.iter().enumerate().filter(|(_, d)| in_range(d)) {
        let want = reference_read(img, none, to_float(d));
        assert!(
            close(got[k], want, c, false),
            "sampler-less {d:?}: {:?} vs {want:?}",
            got[k]
        );
        checked += 1;
    }
    checked
}

impl TestImage {
    fn format_name(&self) -> (u32, u32) {
        (
            self.format.image_channel_order,
            self.format.image_channel_data_type,
        )
    }
}

#[test]
fn every_format_reads_as_chapter_8_says_in_2d() {
    // Every supported format x every sampler (addressing x filter x coordinate mode) on an
    // odd-sized 2D image, against the host reference.
    let fx = Fixture::new();
    let kernels = read_kernels(&fx, CL_MEM_OBJECT_IMAGE2D);
    let mut rng = Rng(0x1a2b_3c4d);
    let mut checked = 0;
    for format in all_formats() {
        let img = TestImage::new(&fx, CL_MEM_OBJECT_IMAGE2D, format, [5, 3, 1], &mut rng);
        checked += check_reads(&fx, &kernels, &img, &mut rng);
    }
    assert!(checked > 83 * 64 * 10, "{checked} reads checked");
}

#[test]
fn every_image_type_reads_as_chapter_8_says() {
    // 1D, 1D buffer, 1D array, 2D array and 3D images, with a float, a normalized and an
    // integer format each, every sampler.
    let fx = Fixture::new();
    let mut rng = Rng(0x5eed);
    let formats = [
        (CL_RGBA, CL_FLOAT),
        (CL_R, CL_UNORM_INT8),
        (CL_RG, CL_SIGNED_INT16),
        (CL_BGRA, CL_UNSIGNED_INT8),
    ];
    for (image_type, size) in [
        (CL_MEM_OBJECT_IMAGE1D, [7, 1, 1]),
        (CL_MEM_OBJECT_IMAGE1D_BUFFER, [9, 1, 1]),
        (CL_MEM_OBJECT_IMAGE1D_ARRAY, [7, 3, 1]),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [5, 3, 4]),
        (CL_MEM_OBJECT_IMAGE3D, [5, 3, 4]),
    ] {
        let kernels = read_kernels(&fx, image_type);
        for (order, ty) in formats {
            let format = cl_image_format {
                image_channel_order: order,
                image_channel_data_type: ty,
            };
            let img = TestImage::new(&fx, image_type, format, size, &mut rng);
            check_reads(&fx, &kernels, &img, &mut rng);
        }
    }
}

/// The bytes `write_image*` should store for a colour, per section 8.3 (the spec's
/// preferred `_rte` conversions, saturating).
fn reference_encode(f: &cl_image_format, color: [f64; 4]) -> Vec<u8> {
    let ty = f.image_channel_data_type;
    let sat = |x: f64, lo: f64, hi: f64| {
        if x.is_nan() {
            0.0
        } else {
            x.round_ties_even().clamp(lo, hi)
        }
    };
    // The colour as the kernel held it: a float rounded to f32 first.
    let f32v = |x: f64| f64::from(x as f32);
    if let Some(fields) = match ty {
        CL_UNORM_SHORT_565 => Some([(11, 5), (5, 6), (0, 5)]),
        CL_UNORM_SHORT_555 => Some([(10, 5), (5, 5), (0, 5)]),
        CL_UNORM_INT_101010 => Some([(20, 10), (10, 10), (0, 10)]),
        _ => None,
    } {
        let mut word = 0u32;
        for (lane, (shift, bits)) in fields.into_iter().enumerate() {
            let max = f64::from((1u32 << bits) - 1);
            word |= (sat(f64::from((color[lane] as f32) * max as f32), 0.0, max) as u32) << shift;
        }
        let size = element_size(f);
        return word.to_le_bytes()[..size].to_vec();
    }
    let mut out = Vec::new();
    for &which in stored(f.image_channel_order) {
        let v = match which {
            'r' | 'i' | 'l' => color[0],
            'g' => color[1],
            'b' => color[2],
            _ => color[3],
        };
        let scaled = |max: f32| f64::from((v as f32) * max);
        match ty {
            CL_UNORM_INT8 => out.push(sat(scaled(255.0), 0.0, 255.0) as u8),
            CL_SNORM_INT8 => out.push(sat(scaled(127.0), -128.0, 127.0) as i8 as u8),
            CL_UNORM_INT16 => {
                out.extend_from_slice(&(sat(scaled(65535.0), 0.0, 65535.0) as u16).to_le_bytes())
            }
            CL_SNORM_INT16 => out
                .extend_from_slice(&(sat(scaled(32767.0), -32768.0, 32767.0) as i16).to_le_bytes()),
            CL_SIGNED_INT8 => out.push(v.clamp(-128.0, 127.0) as i8 as u8),
            CL_SIGNED_INT16 => {
                out.extend_from_slice(&(v.clamp(-32768.0, 32767.0) as i16).to_le_bytes())
            }
            CL_SIGNED_INT32 => out.extend_from_slice(&(v as i32).to_le_bytes()),
            CL_UNSIGNED_INT8 => out.push(v.clamp(0.0, 255.0) as u8),
            CL_UNSIGNED_INT16 => {
                out.extend_from_slice(&(v.clamp(0.0, 65535.0) as u16).to_le_bytes())
            }
            CL_UNSIGNED_INT32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
            CL_HALF_FLOAT => out.extend_from_slice(&f64_to_half_rte(f32v(v)).to_le_bytes()),
            _ => out.extend_from_slice(&(v as f32).to_le_bytes()),
        }
    }
    out
}

/// A double (an f32 value here) rounded to the nearest half, ties to even.
fn f64_to_half_rte(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    // Find the half grid spacing at `a` and round to it.
    let (scale_exp, max) = (-24, 65504.0);
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    let e = if a < 2f64.powi(-14) {
        scale_exp
    } else {
        a.log2().floor() as i32 - 10
    };
    let q = (a / 2f64.powi(e)).round_ties_even() * 2f64.powi(e);
    let q = q.min(max);
    // Encode q exactly.
    if q < 2f64.powi(-14) {
        return sign | (q / 2f64.powi(-24)) as u16;
    }
    let exp = q.log2().floor() as i32;
    let mant = ((q / 2f64.powi(exp) - 1.0) * 1024.0).round() as u16;
    sign | (((exp + 15) as u16) << 10) | mant
}

#[test]
fn every_format_writes_as_section_8_3_says() {
    // write_imagef/i/ui of random colours (in and out of range) into every format, read
    // back raw with clEnqueueReadImage and compared byte for byte with the reference.
    let fx = Fixture::new();
    let kernels = fx.kernel(
        "kernel void write_f(write_only image2d_t img, global const float4 *c) {
            int x = get_global_id(0), y = get_global_id(1);
            write_imagef(img, (int2)(x, y), c[y * get_global_size(0) + x]);
        }
        kernel void write_i(write_only image2d_t img, global const int4 *c) {
            int x = get_global_id(0), y = get_global_id(1);
            write_imagei(img, (int2)(x, y), c[y * get_global_size(0) + x]);
        }
        kernel void write_ui(write_only image2d_t img, global const uint4 *c) {
            int x = get_global_id(0), y = get_global_id(1);
            write_imageui(img, (int2)(x, y), c[y * get_global_size(0) + x]);
        }",
        c"write_f",
        c"",
    );
    let mut rng = Rng(0xbeef);
    let (w, h) = (7usize, 3usize);
    let read = {
        let api = api();
        entry!(api.clEnqueueReadImage)
    };
    for format in all_formats() {
        let c = class(&format);
        let d = desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 1], null_mut());
        let img = create_image(&fx, CL_MEM_WRITE_ONLY, &format, &d, null_mut()).unwrap();
        let colors: Vec<[f64; 4]> = (0..w * h)
            .map(|_| {
                [0; 4].map(|_| match c {
                    Class::Float => f64::from(rng.float(-1.25, 1.25)),
                    Class::Int => f64::from(rng.int(-70000, 70000)),
                    Class::Uint => f64::from(rng.int(0, 140000)),
                })
            })
            .collect();
        let words: Vec<u32> = colors
            .iter()
            .flatten()
            .map(|&v| match c {
                Class::Float => (v as f32).to_bits(),
                _ => v as i32 as u32,
            })
            .collect();
        let color_buf = fx.buffer(&words);
        let k = kernels.sibling(&format!("write_{}", suffix(c)));
        k.mem(0, &img).mem(1, &color_buf);
        fx.run(&k, None, &[w, h], None);
        let size = element_size(&format);
        let mut got = vec![0u8; w * h * size];
        // SAFETY: `got` holds the whole image, packed.
        let status = unsafe {
            read(
                fx.queue,
                img.0,
                CL_TRUE,
                [0, 0, 0].as_ptr(),
                [w, h, 1].as_ptr(),
                0,
                0,
                got.as_mut_ptr().cast(),
                0,
                null(),
                null_mut(),
            )
        };
        assert_eq!(status, CL_SUCCESS);
        for (i, color) in colors.iter().enumerate() {
            let want = reference_encode(&format, *color);
            assert_eq!(
                &got[i * size..(i + 1) * size],
                &want[..],
                "format ({:#x}, {:#x}) colour {color:?}",
                format.image_channel_order,
                format.image_channel_data_type
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Image objects and commands.

fn image_info<T: Plain>(mem: &Mem, param: cl_image_info) -> T {
    let api = api();
    let f = entry!(api.clGetImageInfo);
    let mut value = vec![0u8; size_of::<T>()];
    let mut size = 0usize;
    // SAFETY: `value` has room for a `T`.
    let status = unsafe {
        f(
            mem.0,
            param,
            value.len(),
            value.as_mut_ptr().cast(),
            &mut size,
        )
    };
    assert_eq!(status, CL_SUCCESS, "clGetImageInfo({param:#x})");
    assert_eq!(size, size_of::<T>());
    scalar(&value)
}

#[test]
fn supported_formats_are_listed_for_every_type() {
    // clGetSupportedImageFormats lists the same 83 formats for every image type, among
    // them every required one of Table 5.8.
    let fx = Fixture::new();
    let api = api();
    let f = entry!(api.clGetSupportedImageFormats);
    for image_type in [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        CL_MEM_OBJECT_IMAGE3D,
    ] {
        let mut count = 0;
        // SAFETY: a count query.
        let status = unsafe {
            f(
                fx.context,
                CL_MEM_READ_WRITE,
                image_type,
                0,
                null_mut(),
                &mut count,
            )
        };
        assert_eq!((status, count), (CL_SUCCESS, 83));
        let mut formats = vec![
            cl_image_format {
                image_channel_order: 0,
                image_channel_data_type: 0
            };
            count as usize
        ];
        // SAFETY: room for `count` formats.
        let status = unsafe {
            f(
                fx.context,
                CL_MEM_READ_ONLY,
                image_type,
                count,
                formats.as_mut_ptr(),
                null_mut(),
            )
        };
        assert_eq!(status, CL_SUCCESS);
        let pairs: Vec<(u32, u32)> = formats
            .iter()
            .map(|f| (f.image_channel_order, f.image_channel_data_type))
            .collect();
        let expected: Vec<(u32, u32)> = all_formats()
            .iter()
            .map(|f| (f.image_channel_order, f.image_channel_data_type))
            .collect();
        assert_eq!(pairs, expected);
    }
}

#[test]
fn creation_reports_geometry_and_rejects_bad_descriptors() {
    let fx = Fixture::new();
    let rgba8 = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    };
    // A 2D image over padded host memory (CL_MEM_USE_HOST_PTR): its pitch is the host's.
    let mut host = vec![0u8; 40 * 3];
    let mut d = desc(CL_MEM_OBJECT_IMAGE2D, [7, 3, 1], null_mut());
    d.image_row_pitch = 40;
    let img = create_image(
        &fx,
        CL_MEM_USE_HOST_PTR,
        &rgba8,
        &d,
        host.as_mut_ptr().cast(),
    )
    .unwrap();
    assert_eq!(image_info::<usize>(&img, CL_IMAGE_ROW_PITCH), 40);
    assert_eq!(image_info::<usize>(&img, CL_IMAGE_ELEMENT_SIZE), 4);
    assert_eq!(image_info::<usize>(&img, CL_IMAGE_WIDTH), 7);
    assert_eq!(image_info::<usize>(&img, CL_IMAGE_HEIGHT), 3);
    assert_eq!(image_info::<usize>(&img, CL_IMAGE_DEPTH), 0);
    assert_eq!(image_info::<usize>(&img, CL_IMAGE_SLICE_PITCH), 0);
    assert_eq!(
        image_info::<u64>(&img, CL_IMAGE_FORMAT),
        u64::from(CL_UNORM_INT8) << 32 | u64::from(CL_RGBA)
    );
    let mem_type: u32 = scalar(
        &info_bytes(|size, value, ret| {
            let api = api();
            let f = entry!(api.clGetMemObjectInfo);
            // SAFETY: the info protocol's buffers.
            unsafe { f(img.0, CL_MEM_TYPE, size, value, ret) }
        })
        .unwrap(),
    );
    assert_eq!(mem_type, CL_MEM_OBJECT_IMAGE2D);
    // A 1D array and a 3D image, packed.
    let array = create_image(
        &fx,
        0,
        &rgba8,
        &desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, [9, 5, 1], null_mut()),
        null_mut(),
    )
    .unwrap();
    assert_eq!(image_info::<usize>(&array, CL_IMAGE_ARRAY_SIZE), 5);
    assert_eq!(image_info::<usize>(&array, CL_IMAGE_SLICE_PITCH), 36);
    assert_eq!(image_info::<usize>(&array, CL_IMAGE_HEIGHT), 0);
    let volume = create_image(
        &fx,
        0,
        &rgba8,
        &desc(CL_MEM_OBJECT_IMAGE3D, [5, 3, 2], null_mut()),
        null_mut(),
    )
    .unwrap();
    assert_eq!(image_info::<usize>(&volume, CL_IMAGE_DEPTH), 2);
    assert_eq!(image_info::<usize>(&volume, CL_IMAGE_SLICE_PITCH), 60);
    // A 1D image over a buffer reports it.
    let buffer = fx.filled(0u32, 16);
    let over = create_image(
        &fx,
        0,
        &rgba8,
        &desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 1, 1], buffer.0),
        null_mut(),
    )
    .unwrap();
    assert_eq!(
        image_info::<*mut c_void>(&over, CL_IMAGE_BUFFER),
        buffer.0.cast()
    );
    // A row pitch may be given for it (the buffer is its memory, as a host pointer is for
    // other images): at least width * element size and a multiple of the element size.
    for pitch in [64, 68] {
        let mut pitched = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 1, 1], buffer.0);
        pitched.image_row_pitch = pitch;
        let image = create_image(&fx, 0, &rgba8, &pitched, null_mut()).unwrap();
        assert_eq!(image_info::<usize>(&image, CL_IMAGE_ROW_PITCH), pitch);
    }
    for pitch in [60, 66] {
        let mut pitched = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 1, 1], buffer.0);
        pitched.image_row_pitch = pitch;
        assert_eq!(
            create_image(&fx, 0, &rgba8, &pitched, null_mut()).err(),
            Some(CL_INVALID_IMAGE_DESCRIPTOR),
            "{pitch}"
        );
    }
    // Errors: "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are
    // not valid", "CL_IMAGE_FORMAT_NOT_SUPPORTED", "CL_INVALID_IMAGE_DESCRIPTOR" (a pitch
    // without a host pointer; a buffer image larger than its buffer is
    // CL_INVALID_IMAGE_SIZE), "CL_INVALID_IMAGE_SIZE" (0 or beyond the limits),
    // "CL_INVALID_HOST_PTR".
    let bad_format = cl_image_format {
        image_channel_order: CL_RGB,
        image_channel_data_type: CL_FLOAT,
    };
    let d2 = desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1], null_mut());
    assert_eq!(
        create_image(&fx, 0, &bad_format, &d2, null_mut()).err(),
        Some(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    );
    let rx = cl_image_format {
        image_channel_order: CL_Rx,
        image_channel_data_type: CL_FLOAT,
    };
    assert_eq!(
        create_image(&fx, 0, &rx, &d2, null_mut()).err(),
        Some(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    );
    let mut pitched = d2;
    pitched.image_row_pitch = 64;
    assert_eq!(
        create_image(&fx, 0, &rgba8, &pitched, null_mut()).err(),
        Some(CL_INVALID_IMAGE_DESCRIPTOR)
    );
    let zero = desc(CL_MEM_OBJECT_IMAGE2D, [0, 4, 1], null_mut());
    assert_eq!(
        create_image(&fx, 0, &rgba8, &zero, null_mut()).err(),
        Some(CL_INVALID_IMAGE_SIZE)
    );
    let huge = desc(CL_MEM_OBJECT_IMAGE2D, [16385, 4, 1], null_mut());
    assert_eq!(
        create_image(&fx, 0, &rgba8, &huge, null_mut()).err(),
        Some(CL_INVALID_IMAGE_SIZE)
    );
    let too_long = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [17, 1, 1], buffer.0);
    assert_eq!(
        create_image(&fx, 0, &rgba8, &too_long, null_mut()).err(),
        Some(CL_INVALID_IMAGE_SIZE)
    );
    assert_eq!(
        create_image(&fx, CL_MEM_COPY_HOST_PTR, &rgba8, &d2, null_mut()).err(),
        Some(CL_INVALID_HOST_PTR)
    );
    // An image is no buffer: buffer commands refuse it.
    let mut word = [0u8; 4];
    let status = api().read_buffer(fx.queue, img.0, 0, &mut word, Waits::NONE, None);
    assert_eq!(status, CL_INVALID_MEM_OBJECT);
}

/// `clEnqueueReadImage` of `region` at `origin` with the given host pitches.
fn read_region(
    fx: &Fixture,
    img: &Mem,
    origin: [usize; 3],
    region: [usize; 3],
    pitches: (usize, usize),
    out: &mut [u8],
) -> cl_int {
    let api = api();
    let read = entry!(api.clEnqueueReadImage);
    // SAFETY: `out` holds the region with these pitches (the callers size it so).
    unsafe {
        read(
            fx.queue,
            img.0,
            CL_TRUE,
            origin.as_ptr(),
            region.as_ptr(),
            pitches.0,
            pitches.1,
            out.as_mut_ptr().cast(),
            0,
            null(),
            null_mut(),
        )
    }
}

#[test]
fn write_read_copy_fill_and_map_every_type() {
    // For every image type at odd sizes: a padded write of a sub-region, a read of the
    // whole image with other pitches, a copy of a region into a second image, a fill, a
    // copy to a buffer and back, and a map; each compared with the host's model.
    let fx = Fixture::new();
    let api = api();
    let write = entry!(api.clEnqueueWriteImage);
    let copy = entry!(api.clEnqueueCopyImage);
    let fill = entry!(api.clEnqueueFillImage);
    let to_buffer = entry!(api.clEnqueueCopyImageToBuffer);
    let from_buffer = entry!(api.clEnqueueCopyBufferToImage);
    let map = entry!(api.clEnqueueMapImage);
    let unmap = entry!(api.clEnqueueUnmapMemObject);
    let format = cl_image_format {
        image_channel_order: CL_RG,
        image_channel_data_type: CL_UNSIGNED_INT16,
    };
    let e = 4usize;
    let mut rng = Rng(77);
    for (image_type, size, origin, region) in [
        (CL_MEM_OBJECT_IMAGE1D, [13, 1, 1], [3, 0, 0], [7, 1, 1]),
        (
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            [11, 5, 1],
            [2, 1, 0],
            [6, 3, 1],
        ),
        (CL_MEM_OBJECT_IMAGE2D, [11, 7, 1], [2, 3, 0], [5, 4, 1]),
        (CL_MEM_OBJECT_IMAGE2D_ARRAY, [9, 5, 3], [1, 2, 1], [7, 2, 2]),
        (CL_MEM_OBJECT_IMAGE3D, [9, 5, 3], [1, 2, 1], [7, 3, 2]),
    ] {
        let d = desc(image_type, size, null_mut());
        let img = create_image(&fx, 0, &format, &d, null_mut()).unwrap();
        // The model: packed, API coordinates (a 1D array's layers are y).
        let (w, h, dd) = (size[0], size[1], size[2]);
        let at = |x: usize, y: usize, z: usize| ((z * h + y) * w + x) * e;
        let mut model = vec![0u8; w * h * dd * e];
        // 1. Write the region from padded host memory.
        let (row, slice) = (region[0] * e + 12, (region[0] * e + 12) * region[1] + 8);
        let host: Vec<u8> = (0..slice * region[2])
            .map(|_| rng.next_u64() as u8)
            .collect();
        let (row_arg, slice_arg) = if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            // A 1D array's layers are `slice` apart on the host.
            (row, row)
        } else if matches!(image_type, CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE2D) {
            (row, 0)
        } else {
            (row, slice)
        };
        // SAFETY: `host` holds the region with these pitches.
        let status = unsafe {
            write(
                fx.queue,
                img.0,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                row_arg,
                slice_arg,
                host.as_ptr().cast(),
                0,
                null(),
                null_mut(),
            )
        };
        assert_eq!(status, CL_SUCCESS, "{image_type:#x} write");
        let host_slice = if slice_arg == 0 {
            row_arg * region[1]
        } else {
            slice_arg
        };
        let host_row = if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            host_slice
        } else {
            row_arg
        };
        for z in 0..region[2] {
            for y in 0..region[1] {
                let src = z * host_slice + y * host_row;
                let dst = at(origin[0], origin[1] + y, origin[2] + z);
                model[dst..dst + region[0] * e].copy_from_slice(&host[src..src + region[0] * e]);
            }
        }
        // 2. Read it all back, packed.
        let mut all = vec![0u8; model.len()];
        assert_eq!(
            read_region(&fx, &img, [0; 3], size, (0, 0), &mut all),
            CL_SUCCESS
        );
        assert_eq!(all, model, "{image_type:#x} after the write");
        // 3. Copy a region into a second image of the same type.
        let other = create_image(&fx, 0, &format, &d, null_mut()).unwrap();
        let dst_origin = [0, 0, 0];
        // SAFETY: valid origins and region.
        let status = unsafe {
            copy(
                fx.queue,
                img.0,
                other.0,
                origin.as_ptr(),
                dst_origin.as_ptr(),
                region.as_ptr(),
                0,
                null(),
                null_mut(),
            )
        };
        assert_eq!(status, CL_SUCCESS);
        let mut copied = vec![0u8; model.len()];
        assert_eq!(
            read_region(&fx, &other, [0; 3], size, (0, 0), &mut copied),
            CL_SUCCESS
        );
        for z in 0..region[2] {
            for y in 0..region[1] {
                let src = at(origin[0], origin[1] + y, origin[2] + z);
                let dst = at(0, y, z);
                assert_eq!(
                    copied[dst..dst + region[0] * e],
                    model[src..src + region[0] * e],
                    "{image_type:#x} copy"
                );
            }
        }
        // 4. Fill a region: uint4 (7, 70000, 0, 0) saturates to (7, 65535).
        let color = [7u32, 70000, 0, 0];
        // SAFETY: a uint4 colour and valid origin and region.
        let status = unsafe {
            fill(
                fx.queue,
                img.0,
                color.as_ptr().cast(),
                origin.as_ptr(),
                region.as_ptr(),
                0,
                null(),
                null_mut(),
            )
        };
        assert_eq!(status, CL_SUCCESS);
        for z in 0..region[2] {
            for y in 0..region[1] {
                for x in 0..region[0] {
                    let p = at(origin[0] + x, origin[1] + y, origin[2] + z);
                    model[p..p + 4].copy_from_slice(&[7, 0, 0xff, 0xff]);
                }
            }
        }
        // 5. Image to buffer (packed at an offset) and back into the second image.
        let buffer = fx.filled(0u8, 16 + model.len());
        // SAFETY: valid origins, region and offset.
        let status = unsafe {
            to_buffer(
                fx.queue,
                img.0,
                buffer.0,
                [0; 3].as_ptr(),
                size.as_ptr(),
                16,
                0,
                null(),
                null_mut(),
            )
        };
        assert_eq!(status, CL_SUCCESS);
        let through: Vec<u8> = fx.read(&buffer, 16 + model.len());
        assert_eq!(&through[16..], &model[..], "{image_type:#x} to buffer");
        // SAFETY: as above.
        let status = unsafe {
            from_buffer(
                fx.queue,
                buffer.0,
                other.0,
                16,
                [0; 3].as_ptr(),
                size.as_ptr(),
                0,
                null(),
                null_mut(),
            )
        };
        assert_eq!(status, CL_SUCCESS);
        assert_eq!(
            read_region(&fx, &other, [0; 3], size, (0, 0), &mut copied),
            CL_SUCCESS
        );
        assert_eq!(copied, model, "{image_type:#x} from buffer");
        // 6. Map the region, check it through the returned pitches, write one element.
        let (mut map_row, mut map_slice) = (0usize, 0usize);
        let mut status = 0;
        // SAFETY: valid origin, region and out-parameters.
        let ptr = unsafe {
            map(
                fx.queue,
                img.0,
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE,
                origin.as_ptr(),
                region.as_ptr(),
                &mut map_row,
                &mut map_slice,
                0,
                null(),
                null_mut(),
                &mut status,
            )
        };
        assert_eq!(status, CL_SUCCESS);
        let layer_pitch = if image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY {
            map_slice
        } else {
            map_row
        };
        for z in 0..region[2] {
            for y in 0..region[1] {
                // SAFETY: inside the mapped region, by the returned pitches.
                let row = unsafe {
                    std::slice::from_raw_parts(
                        ptr.cast::<u8>().add(z * map_slice + y * layer_pitch),
                        region[0] * e,
                    )
                };
                let p = at(origin[0], origin[1] + y, origin[2] + z);
                assert_eq!(row, &model[p..p + region[0] * e], "{image_type:#x} map");
            }
        }
        // SAFETY: the first mapped element.
        unsafe { ptr.cast::<u8>().write(42) };
        // SAFETY: the pointer the map returned.
        let status = unsafe { unmap(fx.queue, img.0, ptr, 0, null(), null_mut()) };
        assert_eq!(status, CL_SUCCESS);
        assert_eq!(api.finish(fx.queue), CL_SUCCESS);
        let p = at(origin[0], origin[1], origin[2]);
        model[p] = 42;
        assert_eq!(
            read_region(&fx, &img, [0; 3], size, (0, 0), &mut all),
            CL_SUCCESS
        );
        assert_eq!(all, model, "{image_type:#x} after the map");
        // Out-of-bounds regions are CL_INVALID_VALUE.
        let mut one = vec![0u8; e * 2];
        assert_eq!(
            read_region(&fx, &img, [w - 1, 0, 0], [2, 1, 1], (0, 0), &mut one),
            CL_INVALID_VALUE
        );
    }
}

#[test]
fn copies_between_image_types_and_overlap_rules() {
    // "CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image
    // format", "CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object
    // and the source and destination regions overlap"; a 2D image copies into a slice of a
    // 3D image.
    let fx = Fixture::new();
    let api = api();
    let copy = entry!(api.clEnqueueCopyImage);
    let r32 = cl_image_format {
        image_channel_order: CL_R,
        image_channel_data_type: CL_UNSIGNED_INT32,
    };
    let r16 = cl_image_format {
        image_channel_order: CL_R,
        image_channel_data_type: CL_UNSIGNED_INT16,
    };
    let mut data: Vec<u32> = (0..12).collect();
    let flat = create_image(
        &fx,
        CL_MEM_COPY_HOST_PTR,
        &r32,
        &desc(CL_MEM_OBJECT_IMAGE2D, [4, 3, 1], null_mut()),
        data.as_mut_ptr().cast(),
    )
    .unwrap();
    let volume = create_image(
        &fx,
        0,
        &r32,
        &desc(CL_MEM_OBJECT_IMAGE3D, [4, 3, 2], null_mut()),
        null_mut(),
    )
    .unwrap();
    let narrow = create_image(
        &fx,
        0,
        &r16,
        &desc(CL_MEM_OBJECT_IMAGE2D, [4, 3, 1], null_mut()),
        null_mut(),
    )
    .unwrap();
    let run = |src: &Mem, dst: &Mem, so: [usize; 3], dor: [usize; 3], region: [usize; 3]| {
        // SAFETY: valid arrays.
        unsafe {
            copy(
                fx.queue,
                src.0,
                dst.0,
                so.as_ptr(),
                dor.as_ptr(),
                region.as_ptr(),
                0,
                null(),
                null_mut(),
            )
        }
    };
    assert_eq!(
        run(&flat, &volume, [0; 3], [0, 0, 1], [4, 3, 1]),
        CL_SUCCESS
    );
    let mut slice = vec![0u8; 48];
    assert_eq!(
        read_region(&fx, &volume, [0, 0, 1], [4, 3, 1], (0, 0), &mut slice),
        CL_SUCCESS
    );
    let words: Vec<u32> = array(&slice);
    assert_eq!(words, data);
    assert_eq!(
        run(&flat, &narrow, [0; 3], [0; 3], [4, 3, 1]),
        CL_IMAGE_FORMAT_MISMATCH
    );
    assert_eq!(
        run(&flat, &flat, [0; 3], [1, 1, 0], [2, 2, 1]),
        CL_MEM_COPY_OVERLAP
    );
    assert_eq!(run(&flat, &flat, [0; 3], [2, 0, 0], [2, 3, 1]), CL_SUCCESS);
    assert_eq!(
        run(&flat, &volume, [0; 3], [0; 3], [4, 3, 2]),
        CL_INVALID_VALUE
    );
}

#[test]
fn set_kernel_arg_checks_images_and_samplers() {
    // An image parameter takes an image of its type, and the access qualifier must agree
    // with the image's flags ("CL_INVALID_ARG_VALUE if the argument is an image declared
    // with the read_only qualifier and arg_value refers to an image object created with
    // cl_mem_flags of CL_MEM_WRITE_ONLY"); a sampler parameter takes a sampler
    // ("CL_INVALID_SAMPLER").
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(read_only image2d_t a, write_only image2d_t b, sampler_t s,
                       global int *p) { }",
        c"k",
        c"",
    );
    let rgba8 = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    };
    let d2 = desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1], null_mut());
    let write_only = create_image(&fx, CL_MEM_WRITE_ONLY, &rgba8, &d2, null_mut()).unwrap();
    let read_only = create_image(&fx, CL_MEM_READ_ONLY, &rgba8, &d2, null_mut()).unwrap();
    let volume = create_image(
        &fx,
        0,
        &rgba8,
        &desc(CL_MEM_OBJECT_IMAGE3D, [4, 4, 2], null_mut()),
        null_mut(),
    )
    .unwrap();
    let buffer = fx.filled(0u32, 4);
    let set = |i: cl_uint, m: cl_mem| api().set_kernel_arg_mem(k.kernel, i, m);
    assert_eq!(set(0, read_only.0), CL_SUCCESS);
    assert_eq!(set(0, write_only.0), CL_INVALID_ARG_VALUE);
    assert_eq!(set(1, read_only.0), CL_INVALID_ARG_VALUE);
    assert_eq!(set(1, write_only.0), CL_SUCCESS);
    // A memory object of another kind than the parameter's: CL_INVALID_MEM_OBJECT (the
    // CTS's negative_set_kernel_arg_invalid_image).
    assert_eq!(set(0, volume.0), CL_INVALID_MEM_OBJECT);
    assert_eq!(set(0, buffer.0), CL_INVALID_MEM_OBJECT);
    assert_eq!(set(3, read_only.0), CL_INVALID_MEM_OBJECT);
    assert_eq!(
        api().set_kernel_arg(k.kernel, 2, fx.context.cast::<c_void>()),
        CL_INVALID_SAMPLER
    );
    // A NULL sampler value is no valid sampler (the CTS's negative_invalid_arg_sampler);
    // a wrong size is CL_INVALID_ARG_SIZE whatever the value.
    let set_raw = |size, value: Option<&[u8]>| api().set_kernel_arg_raw(k.kernel, 2, size, value);
    assert_eq!(set_raw(size_of::<cl_sampler>(), None), CL_INVALID_SAMPLER);
    assert_eq!(
        set_raw(2 * size_of::<cl_sampler>(), None),
        CL_INVALID_ARG_SIZE
    );
    assert_eq!(
        set_raw(2 * size_of::<cl_sampler>(), Some(&[0; 16])),
        CL_INVALID_ARG_SIZE
    );
}

/// A deterministic "photo": smooth gradients with a few sharp shapes.
fn test_picture(w: usize, h: usize) -> Vec<u8> {
    let mut px = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        for x in 0..w {
            let inside =
                (x as i64 - 20).pow(2) + (y as i64 - 12).pow(2) < 64 || (x / 7 + y / 5) % 3 == 0;
            let r = (x * 255 / w) as u8;
            let g = (y * 255 / h) as u8;
            let b = if inside { 230 } else { 20 };
            px.extend_from_slice(&[r, g, b, 255]);
        }
    }
    px
}

#[test]
fn gaussian_blur_and_sobel_match_the_host() {
    // Two image-filter kernels over an RGBA8 picture, sampled with clamp-to-edge: a 5x5
    // Gaussian blur written to an RGBA8 image, and a Sobel edge magnitude written to an R
    // float image; both against the same filters computed on the host.
    let fx = Fixture::new();
    let (w, h) = (45usize, 29usize);
    let mut picture = test_picture(w, h);
    let rgba8 = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    };
    let r32f = cl_image_format {
        image_channel_order: CL_R,
        image_channel_data_type: CL_FLOAT,
    };
    let d2 = desc(CL_MEM_OBJECT_IMAGE2D, [w, h, 1], null_mut());
    let src = create_image(
        &fx,
        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
        &rgba8,
        &d2,
        picture.as_mut_ptr().cast(),
    )
    .unwrap();
    let blurred = create_image(&fx, CL_MEM_WRITE_ONLY, &rgba8, &d2, null_mut()).unwrap();
    let edges = create_image(&fx, CL_MEM_WRITE_ONLY, &r32f, &d2, null_mut()).unwrap();
    let k = fx.kernel(
        "constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                                   CLK_FILTER_NEAREST;
        constant float weights[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
        kernel void blur(read_only image2d_t src, write_only image2d_t dst) {
            int2 p = (int2)(get_global_id(0), get_global_id(1));
            float4 sum = 0.0f;
            for (int dy = -2; dy <= 2; dy++)
                for (int dx = -2; dx <= 2; dx++)
                    sum += weights[dx + 2] * weights[dy + 2] *
                           read_imagef(src, edge, p + (int2)(dx, dy));
            write_imagef(dst, p, sum);
        }
        float luma(read_only image2d_t img, int2 p) {
            float4 c = read_imagef(img, edge, p);
            return dot(c.xyz, (float3)(0.299f, 0.587f, 0.114f));
        }
        kernel void sobel(read_only image2d_t src, write_only image2d_t dst) {
            int2 p = (int2)(get_global_id(0), get_global_id(1));
            float gx = luma(src, p + (int2)(1, -1)) + 2 * luma(src, p + (int2)(1, 0)) +
                       luma(src, p + (int2)(1, 1)) - luma(src, p + (int2)(-1, -1)) -
                       2 * luma(src, p + (int2)(-1, 0)) - luma(src, p + (int2)(-1, 1));
            float gy = luma(src, p + (int2)(-1, 1)) + 2 * luma(src, p + (int2)(0, 1)) +
                       luma(src, p + (int2)(1, 1)) - luma(src, p + (int2)(-1, -1)) -
                       2 * luma(src, p + (int2)(0, -1)) - luma(src, p + (int2)(1, -1));
            write_imagef(dst, p, (float4)(sqrt(gx * gx + gy * gy), 0, 0, 1));
        }",
        c"blur",
        c"",
    );
    k.mem(0, &src).mem(1, &blurred);
    fx.run(&k, None, &[w, h], None);
    let sobel = k.sibling("sobel");
    sobel.mem(0, &src).mem(1, &edges);
    fx.run(&sobel, None, &[w, h], None);
    let texel = |x: i64, y: i64, c: usize| {
        let (x, y) = (
            x.clamp(0, w as i64 - 1) as usize,
            y.clamp(0, h as i64 - 1) as usize,
        );
        f64::from(picture[(y * w + x) * 4 + c]) / 255.0
    };
    let weights = [1.0, 4.0, 6.0, 4.0, 1.0].map(|v: f64| v / 16.0);
    let mut got = vec![0u8; w * h * 4];
    assert_eq!(
        read_region(&fx, &blurred, [0; 3], [w, h, 1], (0, 0), &mut got),
        CL_SUCCESS
    );
    let mut worst = 0i32;
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            for c in 0..4 {
                let mut sum = 0.0;
                for dy in -2..=2i64 {
                    for dx in -2..=2i64 {
                        sum += weights[(dx + 2) as usize]
                            * weights[(dy + 2) as usize]
                            * texel(x + dx, y + dy, c);
                    }
                }
                let want = (sum * 255.0).round_ties_even().clamp(0.0, 255.0) as i32;
                let g = i32::from(got[((y as usize) * w + x as usize) * 4 + c]);
                worst = worst.max((g - want).abs());
            }
        }
    }
    // float accumulation may move a value across a rounding boundary by one step.
    assert!(worst <= 1, "blur differs from the host by {worst} steps");
    let mut magnitudes = vec![0u8; w * h * 4];
    assert_eq!(
        read_region(&fx, &edges, [0; 3], [w, h, 1], (0, 0), &mut magnitudes),
        CL_SUCCESS
    );
    let magnitudes: Vec<u32> = array(&magnitudes);
    let luma =
        |x: i64, y: i64| 0.299 * texel(x, y, 0) + 0.587 * texel(x, y, 1) + 0.114 * texel(x, y, 2);
    let mut strong_edges = 0;
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let gx = luma(x + 1, y - 1) + 2.0 * luma(x + 1, y) + luma(x + 1, y + 1)
                - luma(x - 1, y - 1)
                - 2.0 * luma(x - 1, y)
                - luma(x - 1, y + 1);
            let gy = luma(x - 1, y + 1) + 2.0 * luma(x, y + 1) + luma(x + 1, y + 1)
                - luma(x - 1, y - 1)
                - 2.0 * luma(x, y - 1)
                - luma(x + 1, y - 1);
            let want = (gx * gx + gy * gy).sqrt();
            let g = f64::from(f32::from_bits(magnitudes[(y as usize) * w + x as usize]));
            assert!(
                (g - want).abs() < 1e-5,
                "sobel at ({x}, {y}): {g} vs {want}"
            );
            strong_edges += usize::from(want > 0.2);
        }
    }
    assert!(
        strong_edges > 50,
        "the picture has edges to find ({strong_edges})"
    );
}

#[test]
fn opencl_1_1_creation_and_host_memory_images() {
    // clCreateImage2D/3D (1.1, still in 1.2) make the same images; "CL_INVALID_IMAGE_SIZE
    // if ... image_depth <= 1" for 3D. A CL_MEM_USE_HOST_PTR image is the host's memory:
    // a kernel's writes appear there, and a float fill converts its colour (0.5 -> 128 for
    // UNORM_INT8, rounded to nearest even from 127.5).
    let fx = Fixture::new();
    let api = api();
    let create_2d = entry!(api.clCreateImage2D);
    let create_3d = entry!(api.clCreateImage3D);
    let fill = entry!(api.clEnqueueFillImage);
    let rgba8 = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    };
    let (w, h) = (6usize, 4usize);
    let mut host = vec![0u8; 32 * h];
    let mut status = 0;
    // SAFETY: `host` holds 4 rows of 32 bytes; valid errcode_ret.
    let img = Mem(unsafe {
        create_2d(
            fx.context,
            CL_MEM_USE_HOST_PTR,
            &rgba8,
            w,
            h,
            32,
            host.as_mut_ptr().cast(),
            &mut status,
        )
    });
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(image_info::<usize>(&img, CL_IMAGE_ROW_PITCH), 32);
    // SAFETY: no host pointer; valid errcode_ret.
    let flat = unsafe {
        create_3d(
            fx.context,
            0,
            &rgba8,
            4,
            4,
            1,
            0,
            0,
            null_mut(),
            &mut status,
        )
    };
    assert!(flat.is_null());
    assert_eq!(status, CL_INVALID_IMAGE_SIZE);
    // SAFETY: as above.
    let volume = Mem(unsafe {
        create_3d(
            fx.context,
            0,
            &rgba8,
            4,
            4,
            2,
            0,
            0,
            null_mut(),
            &mut status,
        )
    });
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(image_info::<usize>(&volume, CL_IMAGE_DEPTH), 2);
    let k = fx.kernel(
        "kernel void k(write_only image2d_t img) {
            int x = get_global_id(0), y = get_global_id(1);
            write_imagef(img, (int2)(x, y), (float4)(x / 5.0f, y / 3.0f, 1.0f, 0.5f));
        }",
        c"k",
        c"",
    );
    k.mem(0, &img);
    fx.run(&k, None, &[w, h], None);
    for y in 0..h {
        for x in 0..w {
            let px = &host[y * 32 + x * 4..y * 32 + x * 4 + 4];
            let r = ((x as f32 / 5.0) * 255.0).round_ties_even() as u8;
            let g = ((y as f32 / 3.0) * 255.0).round_ties_even() as u8;
            assert_eq!(px, [r, g, 255, 128], "({x}, {y})");
        }
    }
    // The padding between rows is untouched.
    assert!(host.chunks(32).all(|row| row[24..].iter().all(|&b| b == 0)));
    let color = [0.5f32, 0.0, 1.0, -1.0];
    // SAFETY: a float4 colour and valid origin and region.
    let status = unsafe {
        fill(
            fx.queue,
            img.0,
            color.as_ptr().cast(),
            [1, 1, 0].as_ptr(),
            [2, 2, 1].as_ptr(),
            0,
            null(),
            null_mut(),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api.finish(fx.queue), CL_SUCCESS);
    assert_eq!(&host[32 + 4..32 + 8], &[128, 0, 255, 0]);
    assert_eq!(&host[2 * 32 + 8..2 * 32 + 12], &[128, 0, 255, 0]);
}
