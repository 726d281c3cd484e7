//! A command's work, held inside its event.
//!
//! A command used to cost two allocations, its event and a box for its work, and its
//! arguments (a kernel launch's are ~350 bytes) were moved four or five times on the way
//! into them. [`Slot`] is a fixed space in the event that the work is written into once,
//! in place, while the event itself is written in place (`Event::command`): the enqueue
//! then allocates once and copies the arguments once. Work that does not fit is boxed and
//! the box held in the slot.

use std::mem::MaybeUninit;

use super::Queue;
use crate::error::ClResult;

/// A command's work, run in place: when a worker runs it, the allocation that holds it
/// stays with the event and is freed with it, usually on the enqueuing thread (which prunes
/// finished events), instead of on the worker. An allocation freed by another thread than
/// the one that made it goes back to its arena under that arena's lock, which the
/// enqueuing thread takes for its next allocation: the two cores then pass the lock back
/// and forth for each command.
pub trait Job: Send {
    /// Runs the work for `queue` the first time; with `None`, or again, does nothing but
    /// drop it (what it holds goes at once, the allocation with the event).
    fn run(&mut self, queue: Option<&Queue>) -> ClResult<()>;

    /// Runs the work for `queue`, at most once and instead of [`Job::run`], keeping what
    /// it holds until the job is dropped (a bare command of a batch: the enqueuing thread
    /// drops it, see `batch::Batch`). By default what it holds goes at once.
    fn run_kept(&mut self, queue: &Queue) -> ClResult<()> {
        self.run(Some(queue))
    }
}

impl<F: FnOnce(&Queue) -> ClResult<()> + Send> Job for Option<F> {
    fn run(&mut self, queue: Option<&Queue>) -> ClResult<()> {
        match (self.take(), queue) {
            (Some(work), Some(queue)) => work(queue),
            _ => Ok(()),
        }
    }
}

impl<J: Job + ?Sized> Job for Box<J> {
    fn run(&mut self, queue: Option<&Queue>) -> ClResult<()> {
        (**self).run(queue)
    }

    fn run_kept(&mut self, queue: &Queue) -> ClResult<()> {
        (**self).run_kept(queue)
    }
}

/// Work that has nothing to do (a user event's slot).
pub(crate) struct Nothing;

impl Job for Nothing {
    fn run(&mut self, _queue: Option<&Queue>) -> ClResult<()> {
        Ok(())
    }
}

/// A command's work boxed: what does not need to be written in place (tests, callers that
/// choose the work at run time).
pub type Work = Box<dyn Job>;

/// `f` as a boxed command's [`Work`].
pub fn work(f: impl FnOnce(&Queue) -> ClResult<()> + Send + 'static) -> Work {
    Box::new(Some(f))
}

/// The bytes of work a [`Slot`] holds in place: a kernel launch's (see the size test in
/// `command::launch`).
pub const CAPACITY: usize = 384;

/// The 16-byte words of a [`Slot`] of an event ([`CAPACITY`] bytes).
pub(crate) const EVENT_WORDS: usize = CAPACITY / 16;

/// The 16-byte words of a [`BatchSlot`]: a launch whose arguments are a shared snapshot
/// (~100 bytes; see the size test in `command::launch`), the slot 128 bytes in all.
pub(crate) const BATCH_WORDS: usize = 7;

/// A slot of a queue's batch (`batch::Batch`): what the enqueuing thread writes and the
/// runner reads for each command is two cache lines, not seven.
pub(crate) type BatchSlot = Slot<BATCH_WORDS>;

/// A [`Job`] of any type stored in place (in `WORDS` 16-byte words), with the two functions
/// that run and drop it.
pub(crate) struct Slot<const WORDS: usize = EVENT_WORDS> {
    bytes: MaybeUninit<[u128; WORDS]>,
    /// Runs the job ([`Job::run`], or [`Job::run_kept`] when told to keep).
    run: unsafe fn(*mut u8, Option<&Queue>, bool) -> ClResult<()>,
    drop: unsafe fn(*mut u8),
}

/// Whether a `J` is stored in place in an event's slot (else it is boxed).
#[cfg(test)]
pub(crate) const fn fits<J>() -> bool {
    fits_in::<J, EVENT_WORDS>()
}

/// Whether a `J` is stored in place in a slot of `WORDS` words.
pub(crate) const fn fits_in<J, const WORDS: usize>() -> bool {
    size_of::<J>() <= WORDS * 16 && align_of::<J>() <= align_of::<u128>()
}

impl<const WORDS: usize> Slot<WORDS> {
    /// Writes a job into the uninitialised slot at `dst` by `build`, which writes it into
    /// the place it is given (in the slot where a `J` fits, else in a box the slot then
    /// holds): a command is built where it stays, not built elsewhere and copied in.
    /// Returns the job's place. If `build` fails, it must have written nothing that needs
    /// dropping: the slot then holds no job (and must not be dropped as one).
    ///
    /// # Safety
    /// `dst` is valid for writes of a `Slot` and holds none (a live one would leak);
    /// `build` writes a whole `J` into its argument when it succeeds.
    #[inline(always)]
    pub(crate) unsafe fn write_with<J: Job + 'static>(
        dst: *mut Self,
        build: impl FnOnce(*mut J) -> ClResult<()>,
    ) -> ClResult<*mut J> {
        if fits_in::<J, WORDS>() {
            // SAFETY: the caller's contract; `J` fits the slot's bytes.
            unsafe {
                Self::write_functions::<J>(dst);
                let at = (&raw mut (*dst).bytes).cast::<J>();
                build(at)?;
                Ok(at)
            }
        } else {
            let mut boxed = Box::<J>::new_uninit();
            build(boxed.as_mut_ptr())?;
            // SAFETY: `build` wrote the job; a box fits the slot.
            unsafe {
                let mut boxed = boxed.assume_init();
                let at: *mut J = &mut *boxed;
                Self::write_fitting::<Box<J>>(dst, boxed);
                Ok(at)
            }
        }
    }

    /// # Safety
    /// As [`Slot::write_with`], and `J` fits.
    #[inline(always)]
    unsafe fn write_fitting<J: Job + 'static>(dst: *mut Self, job: J) {
        // SAFETY: the caller's contract.
        unsafe {
            Self::write_functions::<J>(dst);
            (&raw mut (*dst).bytes).cast::<J>().write(job);
        }
    }

    /// Writes the functions that run and drop the `J` the slot is about to hold.
    ///
    /// # Safety
    /// `dst` is valid for writes of a `Slot`, and `J` fits.
    #[inline(always)]
    unsafe fn write_functions<J: Job + 'static>(dst: *mut Self) {
        debug_assert!(fits_in::<J, WORDS>());
        /// # Safety
        /// `bytes` holds a live `J` that nothing else uses meanwhile.
        unsafe fn run<J: Job>(bytes: *mut u8, queue: Option<&Queue>, keep: bool) -> ClResult<()> {
            // SAFETY: the caller's contract.
            let job = unsafe { &mut *bytes.cast::<J>() };
            match (queue, keep) {
                (Some(queue), true) => job.run_kept(queue),
                _ => job.run(queue),
            }
        }
        /// # Safety
        /// `bytes` holds a live `J`, not used again.
        unsafe fn drop<J>(bytes: *mut u8) {
            // SAFETY: the caller's contract.
            unsafe { std::ptr::drop_in_place(bytes.cast::<J>()) }
        }
        // SAFETY: `dst` is valid for writes (the caller's contract); the storage is large
        // and aligned enough for a `J` (`fits`). The `J` is dropped by `Slot`'s `Drop`.
        unsafe {
            (&raw mut (*dst).run).write(run::<J>);
            (&raw mut (*dst).drop).write(drop::<J>);
        }
    }

    /// Runs the work for `queue` (see [`Job::run`]).
    pub(crate) fn run(&mut self, queue: Option<&Queue>) -> ClResult<()> {
        // SAFETY: the slot holds the live job `run` was made for, and `&mut self` is the
        // only access.
        unsafe { (self.run)(self.bytes.as_mut_ptr().cast(), queue, false) }
    }

    /// Runs the work for `queue` keeping what it holds (see [`Job::run_kept`]): at most
    /// once, and not with [`Slot::run`].
    pub(crate) fn run_kept(&mut self, queue: &Queue) -> ClResult<()> {
        // SAFETY: as in `run`.
        unsafe { (self.run)(self.bytes.as_mut_ptr().cast(), Some(queue), true) }
    }
}

impl Slot<BATCH_WORDS> {
    /// The job moved into an event's slot (which is larger): a command built for a batch
    /// that it could not join after all.
    pub(crate) fn widen(self) -> Slot {
        const { assert!(BATCH_WORDS <= EVENT_WORDS) };
        let this = std::mem::ManuallyDrop::new(self);
        let mut bytes = MaybeUninit::<[u128; EVENT_WORDS]>::uninit();
        // SAFETY: the job's bytes move to the larger slot, with the functions that run and
        // drop it (they take the job's address, not the slot's size); `this` is not
        // dropped.
        unsafe {
            std::ptr::copy_nonoverlapping(
                this.bytes.as_ptr().cast::<u8>(),
                bytes.as_mut_ptr().cast::<u8>(),
                BATCH_WORDS * 16,
            );
        }
        Slot {
            bytes,
            run: this.run,
            drop: this.drop,
        }
    }
}

impl<const WORDS: usize> Drop for Slot<WORDS> {
    fn drop(&mut self) {
        // SAFETY: the slot holds the live job `drop` was made for; this is its only drop.
        unsafe { (self.drop)(self.bytes.as_mut_ptr().cast()) }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Counts its drops.
    struct Counted(Arc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A slot written with `job`, as an event holds one.
    fn slot<J: Job + 'static>(job: J) -> Box<Slot> {
        let mut slot = Box::<Slot>::new_uninit();
        // SAFETY: a fresh, uninitialised slot.
        unsafe {
            let written = Slot::write_with(slot.as_mut_ptr(), |at: *mut J| {
                at.write(job);
                Ok(())
            });
            assert!(written.is_ok());
            slot.assume_init()
        }
    }

    /// Work that fits is held in place and work that does not is boxed; either runs once
    /// (a second run, or a run with no queue, does nothing) and is dropped once, run or not.
    #[test]
    fn work_runs_once_and_is_dropped_once_in_place_or_boxed() {
        let drops = Arc::new(AtomicUsize::new(0));
        let runs = Arc::new(AtomicUsize::new(0));
        let small = |drops: &Arc<AtomicUsize>, runs: &Arc<AtomicUsize>| {
            let (counted, runs) = (Counted(Arc::clone(drops)), Arc::clone(runs));
            Some(move |_: &Queue| {
                let _held = counted;
                runs.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
        };
        let large = |drops: &Arc<AtomicUsize>, runs: &Arc<AtomicUsize>| {
            let (counted, runs) = (Counted(Arc::clone(drops)), Arc::clone(runs));
            let padding = [7u8; CAPACITY];
            Some(move |_: &Queue| {
                let _held = counted;
                runs.fetch_add(usize::from(padding[CAPACITY - 1]) - 6, Ordering::Relaxed);
                Ok(())
            })
        };
        assert!(fits_value(&small(&drops, &runs)));
        assert!(!fits_value(&large(&drops, &runs)));
        // The two probes above were dropped unrun.
        assert_eq!(drops.swap(0, Ordering::Relaxed), 2);
        let queue = crate::queue::tests::queue(0);
        for boxed in [false, true] {
            let make = |drops: &Arc<AtomicUsize>, runs: &Arc<AtomicUsize>| {
                if boxed {
                    slot(large(drops, runs))
                } else {
                    slot(small(drops, runs))
                }
            };
            drops.store(0, Ordering::Relaxed);
            runs.store(0, Ordering::Relaxed);
            let mut ran = make(&drops, &runs);
            assert_eq!(ran.run(Some(&queue)), Ok(()));
            assert_eq!(ran.run(Some(&queue)), Ok(()));
            let counts = || (runs.load(Ordering::Relaxed), drops.load(Ordering::Relaxed));
            assert_eq!(counts(), (1, 1));
            drop(ran);
            assert_eq!(counts(), (1, 1));
            let mut given_up = make(&drops, &runs);
            assert_eq!(given_up.run(None), Ok(()));
            assert_eq!(counts(), (1, 2));
            drop(given_up);
            drop(make(&drops, &runs));
            assert_eq!(counts(), (1, 3));
        }
    }

    /// A job whose build fails is not in the slot: nothing of it is dropped (in place or
    /// boxed), and the slot is not used.
    #[test]
    fn a_failed_build_leaves_nothing_to_drop() {
        fn fail_to_build<J: Job + 'static>() -> ClResult<()> {
            let mut slot = Box::<Slot>::new_uninit();
            // SAFETY: a fresh, uninitialised slot, freed without dropping a job.
            let written = unsafe {
                Slot::write_with(slot.as_mut_ptr(), |_: *mut J| {
                    Err(crate::ClError(khronos_headers::CL_INVALID_KERNEL_ARGS))
                })
            };
            written.map(|_| ())
        }
        let failed = Err(crate::ClError(khronos_headers::CL_INVALID_KERNEL_ARGS));
        assert_eq!(
            fail_to_build::<Option<fn(&Queue) -> ClResult<()>>>(),
            failed
        );
        type Large = Option<Box<dyn FnOnce(&Queue) -> ClResult<()> + Send>>;
        struct Padded(#[allow(dead_code)] [u8; CAPACITY + 1], Large);
        impl Job for Padded {
            fn run(&mut self, queue: Option<&Queue>) -> ClResult<()> {
                self.1.run(queue)
            }
        }
        assert!(!fits::<Padded>());
        assert_eq!(fail_to_build::<Padded>(), failed);
    }

    fn fits_value<J>(_: &J) -> bool {
        fits::<J>()
    }
}
