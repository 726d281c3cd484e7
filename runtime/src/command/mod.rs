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

use std::mem::MaybeUninit;
use std::sync::Arc;

use khronos_headers::*;

use crate::error::{ClResult, fail};
use crate::event::Event;
use crate::memory::Mem;
use crate::queue::{Enqueued, Job, Queue, QueueOrder, Start};

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

    /// Does the work without giving up what the command holds, which goes when it is
    /// dropped (by the enqueuing thread, for a command without an event in a batch: see
    /// `crate::queue::Job::run_kept`); `None` if the command can only run by value.
    fn run_kept(&mut self, _queue: &Queue) -> Option<ClResult<()>> {
        None
    }
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
    // SAFETY: the command is written whole.
    unsafe {
        enqueue_built(queue, waits, blocking, |at: *mut C| {
            at.write(command);
            Ok(())
        })
    }
}

/// [`enqueue`] with the command built by `build` where it stays, in its event (a kernel
/// launch's arguments are copied once, from the kernel into the event). Nothing is
/// enqueued if `build` fails.
///
/// # Safety
/// `build` writes a whole `C` into the place it is given when it succeeds, and nothing
/// that needs dropping when it fails.
#[inline(always)]
pub unsafe fn enqueue_built<C: Command>(
    queue: &Arc<Queue>,
    waits: Vec<Arc<Event>>,
    blocking: bool,
    build: impl FnOnce(*mut C) -> ClResult<()>,
) -> ClResult<Arc<Event>> {
    // SAFETY: the caller's contract.
    let event = unsafe { enqueue_built_returning(queue, waits, blocking, true, build) }?;
    Ok(event.expect("the event is returned when asked for"))
}

/// [`enqueue_built`], returning the event only if `returned` (see
/// `Queue::enqueue_returning`; a blocking command's is waited for either way).
///
/// # Safety
/// As [`enqueue_built`].
#[inline(always)]
pub unsafe fn enqueue_built_returning<C: Command>(
    queue: &Arc<Queue>,
    waits: Vec<Arc<Event>>,
    blocking: bool,
    returned: bool,
    build: impl FnOnce(*mut C) -> ClResult<()>,
) -> ClResult<Option<Arc<Event>>> {
    let build = |at: *mut Once<C>| {
        // SAFETY: `at` is valid for writes of a `Once<C>`; the command is marked live once
        // `build` has written it (the caller's contract).
        unsafe {
            build((&raw mut (*at).command).cast::<C>())?;
            (&raw mut (*at).live).write(true);
        }
        Ok(())
    };
    let describe = |once: &Once<C>| {
        // SAFETY: written by `build` above.
        let command = unsafe { once.command.assume_init_ref() };
        Enqueued {
            command_type: command.command_type(),
            order: command.order(),
            start: if blocking {
                Start::Blocking
            } else if command.short() {
                Start::Short
            } else {
                Start::Now
            },
        }
    };
    let event = queue.enqueue_returning(waits, returned || blocking, build, describe)?;
    if blocking && let Some(event) = &event {
        match event.wait() {
            CL_COMPLETE => {}
            status => return fail(status),
        }
    }
    Ok(event.filter(|_| returned))
}

/// A command as its event holds it (see `crate::queue::Job`): run once, or dropped unrun.
pub(crate) struct Once<C> {
    command: MaybeUninit<C>,
    /// Not run nor dropped yet.
    live: bool,
}

impl<C: Command> Job for Once<C> {
    /// Runs the command and keeps it (live, to be dropped with the job) if it can run in
    /// place; otherwise runs it by value.
    fn run_kept(&mut self, queue: &Queue) -> ClResult<()> {
        if !self.live {
            return Ok(());
        }
        // SAFETY: live: written and neither run nor dropped.
        let command = unsafe { self.command.assume_init_mut() };
        match command.run_kept(queue) {
            Some(result) => result,
            None => self.run(Some(queue)),
        }
    }

    fn run(&mut self, queue: Option<&Queue>) -> ClResult<()> {
        if !std::mem::replace(&mut self.live, false) {
            return Ok(());
        }
        if let Some(queue) = queue {
            // A command that runs in place is not copied out first (a launch in its
            // event is ~370 bytes), and is dropped where it is.
            // SAFETY: it was live; marked not live, it is dropped here only.
            let command = unsafe { self.command.assume_init_mut() };
            if let Some(result) = command.run_kept(queue) {
                // SAFETY: as above.
                unsafe { self.command.assume_init_drop() };
                return result;
            }
        }
        // SAFETY: it was live, and is marked not to be read again.
        let command = unsafe { self.command.assume_init_read() };
        match queue {
            Some(queue) => command.run(queue),
            None => Ok(()),
        }
    }
}

impl<C> Drop for Once<C> {
    fn drop(&mut self) {
        if self.live {
            // SAFETY: live: written and neither run nor dropped.
            unsafe { self.command.assume_init_drop() }
        }
    }
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A command counting its runs and drops.
    struct Counted(Arc<[AtomicUsize; 2]>);

    impl Command for Counted {
        fn command_type(&self) -> cl_command_type {
            CL_COMMAND_MARKER
        }
        fn run(self, _queue: &Queue) -> ClResult<()> {
            self.0[0].fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0[1].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A command held in its event runs at most once and is dropped exactly once: run,
    /// given up (run with no queue), or dropped with the event unrun.
    #[test]
    fn a_held_command_runs_once_and_is_dropped_once() {
        let queue = crate::queue::tests::queue(0);
        let counts = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let held = || Once {
            command: MaybeUninit::new(Counted(Arc::clone(&counts))),
            live: true,
        };
        let seen = || counts.each_ref().map(|c| c.load(Ordering::Relaxed));
        let mut ran = held();
        assert_eq!(ran.run(Some(&queue)), Ok(()));
        assert_eq!(ran.run(Some(&queue)), Ok(()));
        drop(ran);
        assert_eq!(seen(), [1, 1]);
        let mut given_up = held();
        assert_eq!(given_up.run(None), Ok(()));
        assert_eq!(given_up.run(Some(&queue)), Ok(()));
        drop(given_up);
        assert_eq!(seen(), [1, 2]);
        drop(held());
        assert_eq!(seen(), [1, 3]);
        // Through a queue: the event holds it until it has run.
        let event = enqueue(&queue, Counted(Arc::clone(&counts)), Vec::new(), true).unwrap();
        assert_eq!(event.status(), CL_COMPLETE);
        assert_eq!(seen(), [2, 4]);
    }

    /// A command that runs in place and records where it is dropped: (index, thread).
    struct Kept {
        index: usize,
        log: Arc<parking_lot::Mutex<Vec<(usize, String)>>>,
        /// Met twice while it runs (started, then let go).
        hold: Option<Arc<std::sync::Barrier>>,
    }

    impl Command for Kept {
        fn command_type(&self) -> cl_command_type {
            CL_COMMAND_NDRANGE_KERNEL
        }
        fn run(mut self, queue: &Queue) -> ClResult<()> {
            self.run_kept(queue).expect("runs in place")
        }
        fn run_kept(&mut self, _queue: &Queue) -> Option<ClResult<()>> {
            if let Some(hold) = &self.hold {
                hold.wait();
                hold.wait();
            }
            Some(Ok(()))
        }
    }

    impl Drop for Kept {
        fn drop(&mut self) {
            let name = std::thread::current().name().unwrap_or("").to_string();
            self.log.lock().push((self.index, name));
        }
    }

    /// What the runner of a batch ran without events is dropped by the enqueuing thread,
    /// which picks it up once 16 have piled up; what is left when the runner lets go of the
    /// chain, the runner drops.
    #[test]
    fn bare_commands_are_dropped_by_the_enqueuing_thread_once_sixteen_have_run() {
        // Batching on whatever `CLIFT_BATCH` says.
        let queue = crate::queue::batch_tests::queue(true, 0);
        let log = Arc::new(parking_lot::Mutex::new(Vec::new()));
        let (first, second) = (
            Arc::new(std::sync::Barrier::new(2)),
            Arc::new(std::sync::Barrier::new(2)),
        );
        let enqueue_kept = |index: usize, hold: Option<&Arc<std::sync::Barrier>>, waits| {
            let command = Kept {
                index,
                log: Arc::clone(&log),
                hold: hold.cloned(),
            };
            // SAFETY: the command is written whole.
            unsafe {
                enqueue_built_returning(&queue, waits, false, false, |at: *mut Kept| {
                    at.write(command);
                    Ok(())
                })
            }
            .unwrap()
        };
        let gate = Event::user(Arc::clone(queue.context()));
        // The leader, held back: the commands after it join its batch without events.
        assert!(enqueue_kept(0, None, vec![Arc::clone(&gate)]).is_none());
        for index in 1..20 {
            assert!(enqueue_kept(index, None, Vec::new()).is_none());
        }
        assert!(enqueue_kept(20, Some(&first), Vec::new()).is_none());
        gate.set_status(CL_COMPLETE);
        // 1..=20 have run (20 is running), and nothing is spent yet.
        first.wait();
        assert!(enqueue_kept(21, Some(&second), Vec::new()).is_none());
        first.wait();
        // 21 runs: the runner has handed in 1..=20.
        second.wait();
        assert!(enqueue_kept(22, None, Vec::new()).is_none());
        let here = std::thread::current().name().unwrap_or("").to_string();
        let dropped_here: Vec<usize> = (log.lock().iter())
            .filter(|(_, name)| *name == here)
            .map(|(index, _)| *index)
            .collect();
        assert_eq!(dropped_here, (1..=20).collect::<Vec<_>>());
        second.wait();
        queue.finish();
        let started = std::time::Instant::now();
        while log.lock().len() < 23 {
            assert!(started.elapsed().as_secs() < 10, "{:?}", log.lock());
            std::thread::yield_now();
        }
        let log = log.lock();
        for (index, name) in log.iter() {
            if *index == 0 || *index > 20 {
                assert!(name.starts_with("clift-worker-"), "{index} on {name}");
            }
        }
    }

    /// A command whose event the application did not ask for is enqueued all the same:
    /// nothing is returned, a blocking one has run on return, and `clFinish` waits for
    /// the other.
    #[test]
    fn a_command_whose_event_is_not_returned_still_runs() {
        let queue = crate::queue::tests::queue(0);
        let counts = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let seen = || counts.each_ref().map(|c| c.load(Ordering::Relaxed));
        let unreturned = |blocking| {
            let command = Counted(Arc::clone(&counts));
            // SAFETY: the command is written whole.
            unsafe {
                enqueue_built_returning(&queue, Vec::new(), blocking, false, |at: *mut Counted| {
                    at.write(command);
                    Ok(())
                })
            }
        };
        assert!(matches!(unreturned(true), Ok(None)));
        assert_eq!(seen(), [1, 1]);
        assert!(matches!(unreturned(false), Ok(None)));
        queue.finish();
        assert_eq!(seen(), [2, 2]);
    }
}
