//! Samplers: how a kernel reads an image (section 5.5).
//!
//! Images are not supported yet (`CL_DEVICE_IMAGE_SUPPORT` is `CL_FALSE`), and the spec makes
//! `clCreateSampler` fail on a context none of whose devices supports images. The object is
//! nevertheless complete, because nothing in it depends on images landing: once a device
//! reports image support, [`Sampler::new`] succeeds and everything else already works.

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
    fn no_sampler_without_image_support() {
        let devices = crate::platform::Platform::get().devices().to_vec();
        let context = Context::new(devices, Default::default(), None);
        let desc = SamplerDesc::new(CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST).unwrap();
        assert_eq!(
            Sampler::new(context, desc).err().map(|e| e.code()),
            Some(CL_INVALID_OPERATION)
        );
    }
}
