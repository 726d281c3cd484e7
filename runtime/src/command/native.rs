//! `clEnqueueNativeKernel`: a host function run as a command, with an argument block in
//! which memory-object handles are replaced by the objects' addresses.
//!
//! The function is the application's, wrapped by the C layer into a Rust closure: the
//! runtime calls no C function pointer.

use std::ffi::c_void;
use std::sync::Arc;

use khronos_headers::*;

use super::Command;
use crate::error::{ClResult, fail};
use crate::memory::Mem;

/// The application's function, called with the argument block (NULL when it has none).
pub type NativeFn = Box<dyn FnOnce(*mut c_void) + Send>;

/// `clEnqueueNativeKernel`'s arguments as the C layer read them.
pub struct NativeArgs<'a> {
    /// `user_func`, wrapped; `None` for NULL.
    pub func: Option<NativeFn>,
    /// The block at `args` (`cb_args` bytes); `None` for NULL.
    pub block: Option<&'a [u8]>,
    /// The address of `args`, against which `args_mem_loc` entries are offsets.
    pub block_address: usize,
    pub cb_args: usize,
    pub num_mem_objects: usize,
    /// Whether `mem_list` is non-NULL.
    pub has_mem_list: bool,
    /// `args_mem_loc` as addresses; `None` for NULL.
    pub mem_locs: Option<&'a [usize]>,
}

/// A native kernel, ready to run.
pub struct NativeKernel {
    func: NativeFn,
    block: Vec<u8>,
    /// Where in `block` each memory object's pointer goes.
    slots: Vec<(usize, Option<Arc<Mem>>)>,
}

impl NativeKernel {
    /// `mem(i)`: the `i`th memory object of `mem_list` (the C layer's handle checks; NULL
    /// is `None`).
    pub fn new(
        args: NativeArgs,
        mem: impl Fn(usize) -> ClResult<Option<Arc<Mem>>>,
    ) -> ClResult<Self> {
        // "CL_INVALID_VALUE if user_func is NULL", "if args is a NULL value and cb_args > 0,
        // or if args is a NULL value and num_mem_objects > 0", "if args is not NULL and
        // cb_args is 0", "if num_mem_objects > 0 and mem_list or args_mem_loc are NULL",
        // "if num_mem_objects = 0 and mem_list or args_mem_loc are not NULL".
        let Some(func) = args.func else {
            return fail(CL_INVALID_VALUE);
        };
        let has_block = args.block.is_some();
        if (!has_block && (args.cb_args > 0 || args.num_mem_objects > 0))
            || (has_block && args.cb_args == 0)
        {
            return fail(CL_INVALID_VALUE);
        }
        let has_mem = args.num_mem_objects > 0;
        if has_mem != args.has_mem_list || has_mem != args.mem_locs.is_some() {
            return fail(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if the device associated with command_queue cannot execute
        // the native kernel": clift's CPU device can.
        // The block is copied now ("the memory pointed to by args can be reused").
        let block = args.block.map_or_else(Vec::new, <[u8]>::to_vec);
        let locs = args.mem_locs.unwrap_or_default();
        let mut slots = Vec::with_capacity(locs.len());
        for (i, &loc) in locs.iter().enumerate() {
            // "The buffer object values specified in mem_list are memory object handles
            // (cl_mem values) returned by clCreateBuffer or NULL"; otherwise
            // "CL_INVALID_MEM_OBJECT if one or more memory objects specified in mem_list are
            // not valid or are not buffer objects."
            let object = mem(i)?;
            // Each location must hold a whole pointer inside the block (`offset + 8`
            // checked).
            let offset = loc.wrapping_sub(args.block_address);
            if offset
                .checked_add(size_of::<*mut c_void>())
                .is_none_or(|end| end > args.cb_args)
            {
                return fail(CL_INVALID_VALUE);
            }
            slots.push((offset, object));
        }
        Ok(NativeKernel { func, block, slots })
    }
}

impl Command for NativeKernel {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_NATIVE_KERNEL
    }

    fn run(mut self, _queue: &crate::queue::Queue) -> ClResult<()> {
        for (offset, mem) in &self.slots {
            let address = mem.as_ref().map_or(0, |m| m.base() as usize);
            self.block[*offset..*offset + size_of::<usize>()]
                .copy_from_slice(&address.to_ne_bytes());
        }
        let ptr = if self.block.is_empty() {
            std::ptr::null_mut()
        } else {
            self.block.as_mut_ptr().cast()
        };
        (self.func)(ptr);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args<'a>(block: Option<&'a [u8]>, locs: Option<&'a [usize]>) -> NativeArgs<'a> {
        NativeArgs {
            func: Some(Box::new(|_| {})),
            block,
            block_address: 1000,
            cb_args: block.map_or(0, <[u8]>::len),
            num_mem_objects: locs.map_or(0, <[usize]>::len),
            has_mem_list: locs.is_some(),
            mem_locs: locs,
        }
    }

    #[test]
    fn memory_locations_must_hold_a_pointer_inside_the_block() {
        let block = [0u8; 16];
        let none = |_| Ok(None);
        let code = |r: ClResult<NativeKernel>| r.err().map(|e| e.code());
        assert_eq!(
            code(NativeKernel::new(args(Some(&block), Some(&[1008])), none)),
            None
        );
        assert_eq!(
            code(NativeKernel::new(args(Some(&block), Some(&[1009])), none)),
            Some(CL_INVALID_VALUE)
        );
        // A location below the block wraps to a huge offset; one near usize::MAX overflows.
        for loc in [999, usize::MAX - 3] {
            assert_eq!(
                code(NativeKernel::new(args(Some(&block), Some(&[loc])), none)),
                Some(CL_INVALID_VALUE)
            );
        }
        assert_eq!(
            code(NativeKernel::new(args(None, Some(&[1000])), none)),
            Some(CL_INVALID_VALUE)
        );
    }

    #[test]
    fn the_function_gets_the_block_with_addresses_in_place() {
        let block = 7u64.to_ne_bytes();
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let mut a = args(Some(&block), None);
        a.func = Some(Box::new(move |p: *mut c_void| {
            // SAFETY: the block is 8 bytes.
            let v = unsafe { p.cast::<u64>().read_unaligned() };
            sink.lock().unwrap().push(v);
        }));
        let device = Arc::clone(&crate::platform::Platform::get().devices()[0]);
        let context = crate::context::Context::new(
            vec![Arc::clone(&device)],
            crate::context::ContextProperties::default(),
            None,
        );
        let queue = crate::queue::Queue::new(context, device, 0).unwrap();
        NativeKernel::new(a, |_| Ok(None))
            .unwrap()
            .run(&queue)
            .unwrap();
        assert_eq!(*seen.lock().unwrap(), vec![7]);
    }
}
