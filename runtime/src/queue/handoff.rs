//! Handing a ready command straight to a worker that has just finished one of its queue.
//!
//! A burst of small commands on one queue otherwise costs a spawn on the worker pool per
//! command once the worker keeps up (each command finds the one before it finished): a
//! boxed job, the pool's shared counters, and a wake-up, all cache lines the enqueuing
//! thread and the workers pass back and forth. Instead, a worker that runs out of commands
//! stays on its queue for [`LINGER`], watching one slot; the thread that makes the next
//! command ready puts it there (one compare-and-swap) and the worker runs it.
//!
//! The slot is empty (null: no worker waits), [`waiting`] (one worker waits), or a command's
//! event (`Arc::into_raw`), put there only over [`waiting`] and taken only by the waiting
//! worker, which holds the queue meanwhile: so the queue never drops a full slot.

use std::ptr::null_mut;
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::time::{Duration, Instant};

use crate::event::Event;

/// How long a worker that ran out of commands waits for the next one of its queue before
/// it goes back to the pool: longer than an application takes between two enqueues of a
/// burst, short enough that a worker is not kept from other work for long.
pub const LINGER: Duration = Duration::from_micros(20);

/// How long the worker only spins before it yields between looks (on a machine with more
/// threads than cores, the thread that will enqueue may need this core).
const SPIN: Duration = Duration::from_micros(2);

/// The slot's "a worker waits" value: never the address of an event.
fn waiting() -> *mut Event {
    std::ptr::dangling_mut()
}

/// A queue's hand-off slot.
pub struct Slot(AtomicPtr<Event>);

impl Slot {
    pub const fn new() -> Slot {
        Slot(AtomicPtr::new(null_mut()))
    }

    /// Gives `event` (ready to run) to the worker waiting on this slot; false if none waits.
    pub fn hand_over(&self, event: &Arc<Event>) -> bool {
        if self.0.load(Ordering::Relaxed) != waiting() {
            return false;
        }
        let raw = Arc::into_raw(Arc::clone(event)).cast_mut();
        match (self.0).compare_exchange(waiting(), raw, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => true,
            Err(_) => {
                // SAFETY: `raw` came from `Arc::into_raw` just above and was not published.
                drop(unsafe { Arc::from_raw(raw) });
                false
            }
        }
    }

    /// Waits on the slot (unless another worker does) and runs each command handed over
    /// with `run`, until none has come for [`LINGER`]. The caller holds the slot's queue.
    pub fn linger(&self, mut run: impl FnMut(Arc<Event>)) {
        let slot = &self.0;
        if (slot.compare_exchange(null_mut(), waiting(), Ordering::AcqRel, Ordering::Relaxed))
            .is_err()
        {
            return;
        }
        loop {
            let handed = watch(|| slot.load(Ordering::Acquire) != waiting());
            if !handed
                && (slot.compare_exchange(
                    waiting(),
                    null_mut(),
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ))
                .is_ok()
            {
                return;
            }
            // Only an event can have replaced `waiting`, and only this worker takes it; the
            // slot is empty while the command runs, so that another ready command of the
            // queue goes to the pool instead of waiting for this one.
            let raw = slot.swap(null_mut(), Ordering::AcqRel);
            // SAFETY: `hand_over` stored it from `Arc::into_raw`; it is taken once.
            run(unsafe { Arc::from_raw(raw) });
            if (slot.compare_exchange(null_mut(), waiting(), Ordering::AcqRel, Ordering::Relaxed))
                .is_err()
            {
                return;
            }
        }
    }
}

impl Default for Slot {
    fn default() -> Slot {
        Slot::new()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let raw = *self.0.get_mut();
        if !raw.is_null() && raw != waiting() {
            // SAFETY: an event handed over and never taken (not expected: the waiting worker
            // holds the queue); released so that it is not leaked.
            drop(unsafe { Arc::from_raw(raw) });
        }
    }
}

/// Polls `ready` for up to [`LINGER`]: spinning at first, then yielding the core between
/// looks. Whether it became true.
fn watch(mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..32 {
            if ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        let spent = start.elapsed();
        if spent >= LINGER {
            return ready();
        }
        if spent >= SPIN {
            std::thread::yield_now();
        }
    }
}
