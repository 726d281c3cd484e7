//! Memory-object entry points (buffers and sub-buffers).

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

use clift_runtime::context::Context;
use clift_runtime::device::limits::MIN_DATA_TYPE_ALIGN_BYTES;
use clift_runtime::memory::{Mem, Storage};
use clift_runtime::object::ClObject;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::context::context;
use crate::boundary::{call, call_ret, note_context};
use crate::handle;
use crate::info::{InfoValue, answer};

const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_PTR: cl_mem_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
const HOST_ACCESS: cl_mem_flags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

/// Checks the combination rules of `cl_mem_flags` ("CL_INVALID_VALUE if values specified in
/// flags are not valid as defined in the table above") and makes the default access explicit
/// ("If the value specified for flags is 0, the default is used which is
/// CL_MEM_READ_WRITE").
pub(crate) fn checked_flags(flags: cl_mem_flags) -> ClResult<cl_mem_flags> {
    let at_most_one = |group: cl_mem_flags| (flags & group).count_ones() <= 1;
    if flags & !(ACCESS | HOST_PTR | HOST_ACCESS) != 0
        || !at_most_one(ACCESS)
        || !at_most_one(HOST_ACCESS)
        || (flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
    {
        return fail(CL_INVALID_VALUE);
    }
    Ok(if flags & ACCESS == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    })
}

/// The memory object behind a handle, noting its context.
pub(crate) fn mem<'a>(handle: cl_mem) -> ClResult<&'a Mem> {
    let mem = handle::object::<Mem>(handle)?;
    note_context(mem.context());
    Ok(mem)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateBuffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret("clCreateBuffer", errcode_ret, std::ptr::null_mut(), || {
        self::context(context)?;
        let context = handle::shared::<Context>(context)?;
        let flags = checked_flags(flags)?;
        // "CL_INVALID_BUFFER_SIZE if size is 0 [or] greater than CL_DEVICE_MAX_MEM_ALLOC_SIZE
        // value ... for all devices in context."
        let max = context
            .devices()
            .iter()
            .map(|d| d.max_mem_alloc_size())
            .max()
            .unwrap_or(0);
        if size == 0 || size as u64 > max {
            return fail(CL_INVALID_BUFFER_SIZE);
        }
        // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
        // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
        // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags."
        let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
        if wants_ptr == host_ptr.is_null() {
            return fail(CL_INVALID_HOST_PTR);
        }
        let storage = if flags & CL_MEM_USE_HOST_PTR != 0 {
            let ptr = NonNull::new(host_ptr.cast::<u8>())
                .ok_or(clift_runtime::ClError(CL_INVALID_HOST_PTR))?;
            // SAFETY: the spec requires host_ptr to hold `size` bytes for the buffer's life.
            unsafe { Storage::borrow(ptr, size) }
        } else {
            let storage = if flags & CL_MEM_COPY_HOST_PTR != 0 {
                Storage::allocate_to_fill(size)?
            } else {
                Storage::allocate(size)?
            };
            if flags & CL_MEM_COPY_HOST_PTR != 0 {
                // SAFETY: host_ptr holds `size` bytes (the spec's requirement); the new
                // allocation is `size` bytes and distinct from it.
                unsafe {
                    std::ptr::copy_nonoverlapping(host_ptr.cast::<u8>(), storage.as_ptr(), size)
                };
            }
            storage
        };
        let host_ptr = if flags & CL_MEM_USE_HOST_PTR != 0 {
            host_ptr
        } else {
            std::ptr::null_mut()
        };
        Ok(handle::new_handle(Mem::buffer(
            context, flags, storage, host_ptr,
        )))
    })
}

/// The flags of a sub-buffer: checked against its parent's, and inheriting what it does not
/// say (the rules of `clCreateSubBuffer`).
pub(crate) fn sub_buffer_flags(
    parent: cl_mem_flags,
    requested: cl_mem_flags,
) -> ClResult<cl_mem_flags> {
    // "CL_INVALID_VALUE if buffer was created with CL_MEM_WRITE_ONLY and flags specifies
    // CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, or if buffer was created with CL_MEM_READ_ONLY
    // and flags specifies CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY, or if flags specifies
    // CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR"; likewise for the
    // host access flags.
    if requested & HOST_PTR != 0 {
        return fail(CL_INVALID_VALUE);
    }
    let requested_raw = requested;
    checked_flags(requested)?;
    let conflicts = |parent_bit: cl_mem_flags, forbidden: cl_mem_flags| {
        parent & parent_bit != 0 && requested_raw & forbidden != 0
    };
    if conflicts(CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)
        || conflicts(CL_MEM_READ_ONLY, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)
        || conflicts(CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY)
        || conflicts(CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY)
        || conflicts(
            CL_MEM_HOST_NO_ACCESS,
            CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
        )
    {
        return fail(CL_INVALID_VALUE);
    }
    // Unspecified access, host pointer and host access flags are inherited.
    let mut flags = requested_raw;
    if flags & ACCESS == 0 {
        flags |= parent & ACCESS;
    }
    if flags & HOST_ACCESS == 0 {
        flags |= parent & HOST_ACCESS;
    }
    Ok(flags | (parent & HOST_PTR))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateSubBuffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    buffer_create_type: cl_buffer_create_type,
    buffer_create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret(
        "clCreateSubBuffer",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            mem(buffer)?;
            let parent = handle::shared::<Mem>(buffer)?;
            // "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer
            // object." An image is not a buffer object.
            if parent.parent().is_some() || parent.is_image() {
                return fail(CL_INVALID_MEM_OBJECT);
            }
            let flags = sub_buffer_flags(parent.flags(), flags)?;
            // "CL_INVALID_VALUE if value specified in buffer_create_type is not valid" / "if
            // value(s) specified in buffer_create_info (for a given buffer_create_type) is not
            // valid or if buffer_create_info is NULL."
            if buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION || buffer_create_info.is_null() {
                return fail(CL_INVALID_VALUE);
            }
            // SAFETY: for CL_BUFFER_CREATE_TYPE_REGION the info points to a cl_buffer_region.
            let region = unsafe {
                buffer_create_info
                    .cast::<cl_buffer_region>()
                    .read_unaligned()
            };
            // "CL_INVALID_BUFFER_SIZE if size is 0."
            if region.size == 0 {
                return fail(CL_INVALID_BUFFER_SIZE);
            }
            // "... (origin, size) is out of bounds in buffer" is CL_INVALID_VALUE.
            if !parent.contains(region.origin, region.size) {
                return fail(CL_INVALID_VALUE);
            }
            // "CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in context associated with
            // buffer for which the origin value is aligned to the CL_DEVICE_MEM_BASE_ADDR_ALIGN
            // value."
            if !region
                .origin
                .is_multiple_of(MIN_DATA_TYPE_ALIGN_BYTES as usize)
            {
                return fail(CL_MISALIGNED_SUB_BUFFER_OFFSET);
            }
            Ok(handle::new_handle(Mem::sub_buffer(
                &parent,
                flags,
                region.origin,
                region.size,
            )))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainMemObject(memobj: cl_mem) -> cl_int {
    call("clRetainMemObject", || handle::retain::<Mem>(memobj))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseMemObject(memobj: cl_mem) -> cl_int {
    call("clReleaseMemObject", || handle::release::<Mem>(memobj))
}

fn mem_info(mem: &Mem, param: cl_mem_info) -> ClResult<InfoValue> {
    Ok(match param {
        CL_MEM_TYPE => InfoValue::scalar(mem.object_type()),
        CL_MEM_FLAGS => InfoValue::scalar(mem.flags()),
        CL_MEM_SIZE => InfoValue::scalar(mem.size()),
        CL_MEM_HOST_PTR => InfoValue::scalar(mem.host_ptr()),
        CL_MEM_MAP_COUNT => InfoValue::scalar(mem.map_count()),
        CL_MEM_REFERENCE_COUNT => InfoValue::scalar(mem.header().api_refs()),
        CL_MEM_CONTEXT => InfoValue::scalar::<cl_context>(handle::handle_of(&**mem.context())),
        CL_MEM_ASSOCIATED_MEMOBJECT => InfoValue::scalar::<cl_mem>(
            mem.parent()
                .map_or(std::ptr::null_mut(), |p| handle::handle_of(&**p)),
        ),
        CL_MEM_OFFSET => InfoValue::scalar(mem.offset_in_parent()),
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetMemObjectInfo(
    memobj: cl_mem,
    param_name: cl_mem_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetMemObjectInfo", || {
        let mem = mem(memobj)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                mem_info(mem, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    memobj: cl_mem,
    pfn_notify: Option<unsafe extern "C" fn(cl_mem, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    call("clSetMemObjectDestructorCallback", || {
        let mem = mem(memobj)?;
        // "CL_INVALID_VALUE if pfn_notify is NULL."
        let Some(func) = pfn_notify else {
            return fail(CL_INVALID_VALUE);
        };
        mem.add_destructor(crate::callback::mem_destructor(func, memobj, user_data));
        Ok(())
    })
}

/// The buffer behind a handle for a command on `queue_context`: "CL_INVALID_CONTEXT if the
/// context associated with command_queue and buffer are not the same".
pub(crate) fn buffer_for(queue_context: &Arc<Context>, handle: cl_mem) -> ClResult<Arc<Mem>> {
    let mem = handle::shared::<Mem>(handle)?;
    if !Arc::ptr_eq(mem.context(), queue_context) {
        return fail(CL_INVALID_CONTEXT);
    }
    Ok(mem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_combinations_follow_the_table() {
        assert_eq!(checked_flags(0), Ok(CL_MEM_READ_WRITE));
        assert_eq!(checked_flags(CL_MEM_READ_ONLY), Ok(CL_MEM_READ_ONLY));
        assert!(checked_flags(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY).is_err());
        assert!(checked_flags(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR).is_err());
        assert!(checked_flags(CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR).is_ok());
        assert!(checked_flags(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS).is_err());
        assert!(checked_flags(1 << 20).is_err());
    }

    #[test]
    fn sub_buffers_inherit_and_may_not_widen_access() {
        let parent = CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR | CL_MEM_HOST_READ_ONLY;
        assert_eq!(sub_buffer_flags(parent, 0), Ok(parent));
        assert!(sub_buffer_flags(parent, CL_MEM_WRITE_ONLY).is_err());
        assert!(sub_buffer_flags(parent, CL_MEM_HOST_WRITE_ONLY).is_err());
        assert!(sub_buffer_flags(CL_MEM_READ_WRITE, CL_MEM_COPY_HOST_PTR).is_err());
        assert_eq!(
            sub_buffer_flags(CL_MEM_READ_WRITE, CL_MEM_READ_ONLY),
            Ok(CL_MEM_READ_ONLY)
        );
    }
}
