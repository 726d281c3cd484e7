//! Commands: every `clEnqueue*` operation as a type that holds its validated arguments and
//! knows how to run.
//!
//! A command is built by its constructor, which applies the spec's checks for that command
//! in the order the spec lists them and combines every size the application gave with
//! checked arithmetic (a sum or product that does not fit a `size_t` is out of bounds, never
//! a wrapped small value). [`enqueue`] then hands it to its queue, which holds it in the command's event; when its
//! dependencies have finished, a worker (or the thread about to wait for it) runs it.
//!
//! The C layer resolves handles and reads the application's arrays into Rust values, then
//! calls a constructor and [`enqueue`]; it does no checking of its own beyond what needs the
//! C view (NULL pointers, handle validity). One module per family:
//! [`buffer`] (read, write, copy, fill), [`rect`] (the rectangle transfers), [`image`]
//! (image read, write, copy, fill, and copies between images and buffers), [`map`] (map and
//! unmap), [`launch`] (NDRange and task), [`native`] (native kernels), [`sync`] (markers,
//! barriers, waits) and [`migrate`].

pub mod buffer;
pub mod image;
pub mod launch;
pub mod map;
pub mod migrate;
pub mod native;
pub mod rect;
pub mod sync;

use std::sync::Arc;

use khronos_headers::*;

use crate::error::{ClResult, fail};
use crate::event::Event;
use crate::memory::Mem;
use crate::queue::{Queue, QueueOrder, Start};

/// A command with its arguments validated.
pub trait Command: Send + 'static {
    /// Its `CL_COMMAND_*` type (`CL_EVENT_COMMAND_TYPE`).
    fn command_type(&self) -> cl_command_type;

    /// How it is ordered against the other commands of its queue.
    fn order(&self) -> QueueOrder {
        QueueOrder::Command
    }

    /// Whether it takes at most microseconds, so that a thread about to wait for it had
    /// better run it than hand it to a worker (`crate::queue::Start::Short`).
    fn short(&self) -> bool {
        false
    }

    /// Does the work, once its dependencies have finished, for the queue it was enqueued
    /// on (which holds the device and the context until then, so that a command need not
    /// hold them itself: each reference count a command takes and a worker drops is a
    /// cache line the two cores pass back and forth).
    fn run(self, queue: &Queue) -> ClResult<()>;
}

/// Enqueues `command` on `queue` after `waits` (validated by the caller: events of the
/// queue's context), waits for it if `blocking`, and returns its event.
///
/// "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the ... operations are blocking and the
/// execution status of any of the events in event_wait_list is a negative integer value";
/// a blocking command that failed itself reports its own error.
#[inline]
pub fn enqueue<C: Command>(
    queue: &Arc<Queue>,
    command: C,
    waits: Vec<Arc<Event>>,
    blocking: bool,
) -> ClResult<Arc<Event>> {
    let (command_type, order) = (command.command_type(), command.order());
    let start = if blocking {
        Start::Blocking
    } else if command.short() {
        Start::Short
    } else {
        Start::Now
    };
    // Written in place into the event: the command's only copy.
    let job = Some(move |queue: &Queue| command.run(queue));
    let event = queue.enqueue(command_type, waits, order, start, job);
    if blocking {
        match event.wait() {
            CL_COMPLETE => {}
            status => return fail(status),
        }
    }
    Ok(event)
}

/// "CL_INVALID_CONTEXT if context associated with command_queue and events in
/// event_wait_list are not the same" (the events resolved from their handles by the caller).
pub fn check_wait_list(queue: &Queue, waits: &[Arc<Event>]) -> ClResult<()> {
    if waits
        .iter()
        .any(|e| !Arc::ptr_eq(e.context(), queue.context()))
    {
        return fail(CL_INVALID_CONTEXT);
    }
    Ok(())
}

/// An address in the application's memory that a command reads or writes when it runs.
/// The application keeps the memory valid until the command completes, as the spec
/// requires; the constructors that take one are `unsafe` for that reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostPtr(usize);

impl HostPtr {
    /// The address of `ptr`; `None` for NULL.
    pub fn new<T>(ptr: *const T) -> Option<HostPtr> {
        (!ptr.is_null()).then_some(HostPtr(ptr as usize))
    }

    pub fn ptr(self) -> *mut u8 {
        self.0 as *mut u8
    }

    pub fn address(self) -> usize {
        self.0
    }
}

/// Which host access a command needs (checked against `CL_MEM_HOST_*`), and for transfers
/// the direction: `Read` copies from the object to the host, `Write` the other way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostAccess {
    Read,
    Write,
}

/// "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been created
/// with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS" (and the mirror rule for writes;
/// the same for images).
pub fn check_host_access(mem: &Mem, access: HostAccess) -> ClResult<()> {
    let forbidden = match access {
        HostAccess::Read => CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
        HostAccess::Write => CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
    };
    if mem.flags() & forbidden != 0 {
        return fail(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// An `origin` or `region` array as the application gave it: "CL_INVALID_VALUE if ...
/// origin or region is NULL", and for regions "if any region array element is 0".
pub fn origin(v: Option<[usize; 3]>) -> ClResult<[usize; 3]> {
    v.ok_or(crate::ClError(CL_INVALID_VALUE))
}

/// See [`origin`]: a region must also have no zero element.
pub fn region(v: Option<[usize; 3]>) -> ClResult<[usize; 3]> {
    match v {
        Some(r) if !r.contains(&0) => Ok(r),
        _ => fail(CL_INVALID_VALUE),
    }
}

/// The three arrays of a rectangle command, read in the order the checks are listed.
pub fn origins_and_region(
    a: Option<[usize; 3]>,
    b: Option<[usize; 3]>,
    r: Option<[usize; 3]>,
) -> ClResult<([usize; 3], [usize; 3], [usize; 3])> {
    Ok((origin(a)?, origin(b)?, region(r)?))
}
