//! The `clGet*Info` protocol, implemented once.
//!
//! Every info query answers with bytes: the caller may ask for the size only (NULL value
//! pointer), must give a buffer at least that large (else `CL_INVALID_VALUE`), and may ask
//! for the size written back. Each info function only maps a parameter to an [`InfoValue`].

use std::ffi::c_void;

use clift_runtime::{ClResult, fail};
use khronos_headers::CL_INVALID_VALUE;

/// Plain values whose bytes are their C representation (no padding, no pointers to follow).
///
/// # Safety
/// Implementors must have no padding bytes and no invalid bit patterns concerns for reading.
pub(crate) unsafe trait Plain: Copy {}

macro_rules! plain {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive integer or pointer: no padding.
        unsafe impl Plain for $t {}
    )* };
}
plain!(u8, u32, u64, usize, i32, i64, isize);
// SAFETY: a raw pointer is one machine word with no padding.
unsafe impl<T> Plain for *mut T {}

/// The answer to one info query, as the bytes the C API returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InfoValue(Vec<u8>);

impl InfoValue {
    pub(crate) fn scalar<T: Plain>(value: T) -> InfoValue {
        Self::slice(std::slice::from_ref(&value))
    }

    pub(crate) fn slice<T: Plain>(values: &[T]) -> InfoValue {
        // SAFETY: `T: Plain` has no padding, so its memory is `size_of_val` initialized bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values))
        };
        InfoValue(bytes.to_vec())
    }

    /// A C string: the text and its terminating NUL.
    pub(crate) fn string(text: &str) -> InfoValue {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
        InfoValue(bytes)
    }

    /// A `cl_bool`.
    pub(crate) fn bool(value: bool) -> InfoValue {
        Self::scalar(u32::from(value))
    }

    #[cfg(test)]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// Writes the answer as the protocol says.
    ///
    /// # Safety
    /// `out` must be NULL or valid for `size` bytes of writes; `size_ret` NULL or valid for
    /// one `usize` write (what the spec asks of the application).
    pub(crate) unsafe fn write_to(
        &self,
        size: usize,
        out: *mut c_void,
        size_ret: *mut usize,
    ) -> ClResult<()> {
        if !out.is_null() {
            // "CL_INVALID_VALUE if ... size in bytes specified by param_value_size is < size
            // of return type ... and param_value is not a NULL value."
            if size < self.0.len() {
                return fail(CL_INVALID_VALUE);
            }
            // SAFETY: the caller's contract: `out` holds at least `size >= len` bytes.
            unsafe { std::ptr::copy_nonoverlapping(self.0.as_ptr(), out.cast(), self.0.len()) };
        }
        if !size_ret.is_null() {
            // SAFETY: the caller's contract.
            unsafe { size_ret.write(self.0.len()) };
        }
        Ok(())
    }
}

/// Answers an info query: computes the value (or the error for an unknown parameter) and
/// writes it by the protocol.
///
/// # Safety
/// As [`InfoValue::write_to`].
pub(crate) unsafe fn answer(
    value: ClResult<InfoValue>,
    size: usize,
    out: *mut c_void,
    size_ret: *mut usize,
) -> ClResult<()> {
    // SAFETY: forwarded contract.
    unsafe { value?.write_to(size, out, size_ret) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    #[test]
    fn size_query_copy_and_too_small_buffer() {
        let v = InfoValue::string("abc");
        let mut size = 0usize;
        // SAFETY: `size` is a valid out-parameter; no value buffer.
        unsafe { v.write_to(0, null_mut(), &mut size) }.unwrap();
        assert_eq!(size, 4);
        let mut buf = [0xffu8; 4];
        // SAFETY: `buf` holds the 4 bytes promised.
        unsafe { v.write_to(4, buf.as_mut_ptr().cast(), null_mut()) }.unwrap();
        assert_eq!(&buf, b"abc\0");
        // SAFETY: `buf` holds more than the 3 bytes promised.
        let err = unsafe { v.write_to(3, buf.as_mut_ptr().cast(), &mut size) }.unwrap_err();
        assert_eq!(err.code(), CL_INVALID_VALUE);
    }

    #[test]
    fn scalars_and_slices_are_native_bytes() {
        assert_eq!(
            InfoValue::scalar(0x0102_0304u32).bytes(),
            &0x0102_0304u32.to_ne_bytes()
        );
        assert_eq!(
            InfoValue::slice(&[1usize, 2]).bytes().len(),
            2 * size_of::<usize>()
        );
        assert_eq!(InfoValue::bool(true).bytes(), &1u32.to_ne_bytes());
    }
}
