//! Samplers: how a kernel reads an image (section 5.5).
//!
//! A sampler object reaches a kernel as 32 bits, encoded as OpenCL C's `CLK_*` constants
//! are (`clift_builtins::image::sample`), so a sampler argument and a sampler written in the
//! kernel source behave the same.

use std::sync::Arc;

use khronos_headers::*;

use crate::context::Context;
use crate::error::{ClResult, fail};
use crate::object::{ClObject, Header, ObjectKind};

/// The properties `clCreateSampler` takes, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDesc {
    /// `CL_SAMPLER_NORMALIZED_COORDS`.
    pub normalized_coords: bool,
    /// `CL_SAMPLER_ADDRESSING_MODE`: one of the `CL_ADDRESS_*` values.
    pub addressing_mode: cl_addressing_mode,
    /// `CL_SAMPLER_FILTER_MODE`: one of the `CL_FILTER_*` values.
    pub filter_mode: cl_filter_mode,
}

impl SamplerDesc {
    /// The bits a kernel's `sampler_t` holds for this sampler.
    pub fn kernel_bits(self) -> u32 {
        use clift_builtins::image::sample::{Addressing, Sampler as Bits};
        Bits {
            normalized: self.normalized_coords,
            addressing: match self.addressing_mode {
                CL_ADDRESS_CLAMP_TO_EDGE => Addressing::ClampToEdge,
                CL_ADDRESS_CLAMP => Addressing::Clamp,
                CL_ADDRESS_REPEAT => Addressing::Repeat,
                CL_ADDRESS_MIRRORED_REPEAT => Addressing::MirroredRepeat,
                _ => Addressing::None,
            },
            linear: self.filter_mode == CL_FILTER_LINEAR,
        }
        .bits()
    }

    /// "CL_INVALID_VALUE if addressing_mode, filter_mode or normalized_coords or combination
    /// of these argument values are not valid."
    ///
    /// Every combination of valid values is valid: the repeat modes with unnormalized
    /// coordinates are not an error at creation; section 6.12.14.1 only leaves the image
    /// coordinates they produce undefined.
    pub fn new(
        normalized_coords: cl_bool,
        addressing_mode: cl_addressing_mode,
        filter_mode: cl_filter_mode,
    ) -> ClResult<SamplerDesc> {
        let normalized_coords = match normalized_coords {
            CL_TRUE => true,
            CL_FALSE => false,
            _ => return fail(CL_INVALID_VALUE),
        };
        if !matches!(
            addressing_mode,
            CL_ADDRESS_NONE
                | CL_ADDRESS_CLAMP_TO_EDGE
                | CL_ADDRESS_CLAMP
                | CL_ADDRESS_REPEAT
                | CL_ADDRESS_MIRRORED_REPEAT
        ) {
            return fail(CL_INVALID_VALUE);
        }
        if !matches!(filter_mode, CL_FILTER_NEAREST | CL_FILTER_LINEAR) {
            return fail(CL_INVALID_VALUE);
        }
        Ok(SamplerDesc {
            normalized_coords,
            addressing_mode,
            filter_mode,
        })
    }
}

/// A sampler object.
#[repr(C)]
pub struct Sampler {
    header: Header,
    context: Arc<Context>,
    desc: SamplerDesc,
}

// SAFETY: `Sampler` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Sampler {
    const KIND: ObjectKind = ObjectKind::Sampler;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Sampler {
    /// `clCreateSampler` once the arguments are checked.
    pub fn new(context: Arc<Context>, desc: SamplerDesc) -> ClResult<Arc<Sampler>> {
        // "CL_INVALID_OPERATION if images are not supported by any device associated with
        // context (i.e. CL_DEVICE_IMAGE_SUPPORT specified in table 4.3 is CL_FALSE)."
        if !context.devices().iter().any(|d| d.image_support()) {
            return fail(CL_INVALID_OPERATION);
        }
        Ok(Arc::new(Sampler {
            header: Header::new(ObjectKind::Sampler),
            context,
            desc,
        }))
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.context
    }

    pub fn desc(&self) -> SamplerDesc {
        self.desc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampler_properties_are_checked() {
        let desc = SamplerDesc::new(CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR).unwrap();
        assert!(desc.normalized_coords);
        assert!(SamplerDesc::new(CL_FALSE, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST).is_ok());
        for (n, a, f) in [
            (2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
            (CL_TRUE, 0x1135, CL_FILTER_NEAREST),
            (CL_TRUE, CL_ADDRESS_CLAMP, 0x1142),
        ] {
            assert_eq!(
                SamplerDesc::new(n, a, f).unwrap_err().code(),
                CL_INVALID_VALUE
            );
        }
    }

    #[test]
    fn kernel_bits_match_the_clk_constants() {
        use clift_builtins::image::sample::{
            CLK_ADDRESS_NONE, CLK_ADDRESS_REPEAT, CLK_FILTER_LINEAR, CLK_FILTER_NEAREST,
            CLK_NORMALIZED_COORDS_TRUE,
        };
        let desc = SamplerDesc::new(CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR).unwrap();
        assert_eq!(
            desc.kernel_bits(),
            CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR
        );
        let desc = SamplerDesc::new(CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST).unwrap();
        assert_eq!(desc.kernel_bits(), CLK_ADDRESS_NONE | CLK_FILTER_NEAREST);
        let devices = crate::platform::Platform::get().devices().to_vec();
        let context = Context::new(devices, Default::default(), None);
        assert!(Sampler::new(context, desc).is_ok());
    }
}
