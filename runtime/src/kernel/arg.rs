//! `clSetKernelArg`: every check of a kernel argument, in one place.
//!
//! The C layer passes the index, the size and the value pointer as the application gave
//! them, and a way to resolve memory-object and sampler handles ([`ArgHandles`], since
//! handle validation is the C boundary's). Everything else is decided here: the index, the
//! size for the parameter's kind, NULL values, the kind of memory object, and an image's
//! access qualifier. What is stored is an [`ArgValue`] that suits its parameter, so a launch
//! only has to check that every argument was set and that its objects are still alive.

use std::ffi::c_void;
use std::sync::Arc;

use khronos_headers::*;

use super::{ArgValue, Kernel, ParamKind};
use crate::error::{ClError, ClResult, fail};
use crate::memory::Mem;
use crate::sampler::Sampler;

/// How the C layer turns the handles inside an argument value into objects.
pub trait ArgHandles {
    /// A memory object, or the boundary's error for an invalid handle
    /// (`CL_INVALID_MEM_OBJECT`).
    fn mem(&self, handle: cl_mem) -> ClResult<Arc<Mem>>;
    /// A sampler; `None` for an invalid handle.
    fn sampler(&self, handle: cl_sampler) -> Option<Arc<Sampler>>;
}

impl Kernel {
    /// `clSetKernelArg(kernel, index, size, value)`: "CL_INVALID_ARG_INDEX if arg_index is
    /// not a valid argument index", then the value read and checked as its parameter's kind
    /// requires.
    ///
    /// # Safety
    /// `value` must be NULL or valid for `size` reads (the application's contract).
    pub unsafe fn set_arg_from(
        &self,
        index: u32,
        size: usize,
        value: *const c_void,
        handles: &dyn ArgHandles,
    ) -> ClResult<()> {
        let Some(param) = self.code().params.get(index as usize) else {
            return fail(CL_INVALID_ARG_INDEX);
        };
        // SAFETY: forwarded contract.
        let value = unsafe { read_arg_value(&param.kind, size, value, handles) }?;
        if let ArgValue::Image(image) = &value {
            check_image_access(image.flags(), param.info.access_qualifier)?;
        }
        self.set_arg(index, value)
    }
}

/// Reads a `clSetKernelArg` value as its parameter's kind requires.
///
/// # Safety
/// `value` must be NULL or valid for `size` reads.
unsafe fn read_arg_value(
    kind: &ParamKind,
    size: usize,
    value: *const c_void,
    handles: &dyn ArgHandles,
) -> ClResult<ArgValue> {
    match kind {
        ParamKind::Buffer { .. } => {
            // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for
            // an argument that is not a memory object or if the argument is a memory object
            // and arg_size != sizeof(cl_mem)".
            if size != size_of::<cl_mem>() {
                return fail(CL_INVALID_ARG_SIZE);
            }
            // "If the argument is a buffer object, the arg_value pointer can be NULL or point
            // to a NULL value in which case a NULL value will be used as the value".
            let mem = if value.is_null() {
                std::ptr::null_mut()
            } else {
                // SAFETY: `value` holds a `cl_mem` (size checked).
                unsafe { value.cast::<cl_mem>().read_unaligned() }
            };
            if mem.is_null() {
                return Ok(ArgValue::Buffer(None));
            }
            // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the
            // specified arg_value is not a valid memory object."
            let mem = handles.mem(mem)?;
            // An image is a memory object, but not one a pointer parameter can take: as for
            // an image parameter given a buffer (below), CL_INVALID_MEM_OBJECT.
            if mem.is_image() {
                return fail(CL_INVALID_MEM_OBJECT);
            }
            Ok(ArgValue::Buffer(Some(mem)))
        }
        ParamKind::Local => {
            // "CL_INVALID_ARG_VALUE if ... the argument is declared with the __local
            // qualifier and arg_value is not NULL"; "CL_INVALID_ARG_SIZE if ... arg_size is
            // zero and the argument is declared with the __local qualifier". Any other size
            // is taken (5.7.2 lists no error for one beyond the device's local memory): the
            // launch combines the sizes with checked arithmetic and refuses what cannot fit.
            if !value.is_null() {
                return fail(CL_INVALID_ARG_VALUE);
            }
            if size == 0 {
                return fail(CL_INVALID_ARG_SIZE);
            }
            Ok(ArgValue::Local(size))
        }
        ParamKind::Value { size: expected } => {
            // "CL_INVALID_ARG_VALUE if arg_value specified is NULL for an argument that is
            // not declared with the __local qualifier".
            if value.is_null() {
                return fail(CL_INVALID_ARG_VALUE);
            }
            if size != *expected {
                return fail(CL_INVALID_ARG_SIZE);
            }
            // SAFETY: `value` holds `size` bytes.
            Ok(ArgValue::Bytes(
                unsafe { std::slice::from_raw_parts(value.cast::<u8>(), size) }.to_vec(),
            ))
        }
        ParamKind::Sampler => {
            // "CL_INVALID_ARG_SIZE if ... the argument is a sampler object and arg_size !=
            // sizeof(cl_sampler)".
            if size != size_of::<cl_sampler>() {
                return fail(CL_INVALID_ARG_SIZE);
            }
            // "CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the
            // specified arg_value is not a valid sampler object": a NULL arg_value too (the
            // Khronos CTS's negative_invalid_arg_sampler expects this code for it).
            if value.is_null() {
                return fail(CL_INVALID_SAMPLER);
            }
            // SAFETY: `value` holds a `cl_sampler` (size checked).
            let handle = unsafe { value.cast::<cl_sampler>().read_unaligned() };
            let sampler = handles.sampler(handle).ok_or(ClError(CL_INVALID_SAMPLER))?;
            Ok(ArgValue::Sampler(sampler.desc().kernel_bits()))
        }
        ParamKind::Image(kind) => {
            if value.is_null() {
                return fail(CL_INVALID_ARG_VALUE);
            }
            if size != size_of::<cl_mem>() {
                return fail(CL_INVALID_ARG_SIZE);
            }
            // SAFETY: `value` holds a `cl_mem` (size checked).
            let mem = handles.mem(unsafe { value.cast::<cl_mem>().read_unaligned() })?;
            // A buffer, or an image of another type, is a memory object this parameter cannot
            // take: CL_INVALID_MEM_OBJECT, "for an argument declared to be a memory object
            // when the specified arg_value is not a valid memory object" (what the Khronos
            // CTS's negative_set_kernel_arg_invalid_image expects). The access rule is
            // checked by `check_image_access`.
            match mem.image_info() {
                Some(image) if image.geometry.kind() == *kind => Ok(ArgValue::Image(mem)),
                _ => fail(CL_INVALID_MEM_OBJECT),
            }
        }
    }
}

/// "CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only qualifier
/// and arg_value refers to an image object created with cl_mem_flags of CL_MEM_WRITE_ONLY
/// or if the image argument is declared with the write_only qualifier and arg_value refers
/// to an image object created with cl_mem_flags of CL_MEM_READ_ONLY."
fn check_image_access(flags: cl_mem_flags, access: cl_kernel_arg_access_qualifier) -> ClResult<()> {
    let forbidden = match access {
        CL_KERNEL_ARG_ACCESS_READ_ONLY => CL_MEM_WRITE_ONLY,
        CL_KERNEL_ARG_ACCESS_WRITE_ONLY => CL_MEM_READ_ONLY,
        _ => 0,
    };
    if flags & forbidden != 0 {
        return fail(CL_INVALID_ARG_VALUE);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_access_follows_the_qualifier() {
        let code = |flags, access| check_image_access(flags, access).err().map(|e| e.code());
        assert_eq!(
            code(CL_MEM_WRITE_ONLY, CL_KERNEL_ARG_ACCESS_READ_ONLY),
            Some(CL_INVALID_ARG_VALUE)
        );
        assert_eq!(
            code(CL_MEM_READ_ONLY, CL_KERNEL_ARG_ACCESS_WRITE_ONLY),
            Some(CL_INVALID_ARG_VALUE)
        );
        assert_eq!(code(CL_MEM_READ_ONLY, CL_KERNEL_ARG_ACCESS_READ_ONLY), None);
        assert_eq!(code(CL_MEM_READ_WRITE, CL_KERNEL_ARG_ACCESS_NONE), None);
    }
}
