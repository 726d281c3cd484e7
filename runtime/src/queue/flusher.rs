//! The flusher: the bound on how long a deferred command waits for someone to wait for it.
//!
//! Deferring a command that is ready at enqueue (see `crate::queue`) saves the hand-off to
//! the pool when the application waits for it next, as it nearly always does. An
//! application that does not (it enqueues, then works on the host for a while before it
//! waits) would otherwise find its command not started. One background thread ticks every
//! [`TICK`] while commands are being deferred and hands any command deferred before the
//! previous tick to the pool: no command waits longer than two ticks unless the
//! application waits for it (then it runs at once). After [`IDLE_TICKS`] ticks without a
//! deferred command the thread sleeps until the next deferral wakes it, so an idle process
//! costs nothing, and a busy one costs one system call per idle period, not per command.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::Queue;

/// How often the flusher looks at the queues while commands are being deferred.
pub const TICK: Duration = Duration::from_micros(500);

/// Ticks without a deferred command after which the flusher sleeps.
pub const IDLE_TICKS: u32 = 16;

struct Flusher {
    /// Every queue made (dead ones are dropped as the ticks find them).
    queues: Mutex<Vec<Weak<Queue>>>,
    /// The tick count (only the flusher writes it).
    tick: AtomicU64,
    /// Whether the flusher sleeps until woken (written under `lock`).
    sleeping: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

fn flusher() -> &'static Flusher {
    static FLUSHER: OnceLock<&'static Flusher> = OnceLock::new();
    FLUSHER.get_or_init(|| {
        let flusher: &'static Flusher = Box::leak(Box::new(Flusher {
            queues: Mutex::new(Vec::new()),
            tick: AtomicU64::new(0),
            sleeping: AtomicBool::new(true),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }));
        // Without the thread, deferred commands still run when waited for or flushed.
        let _ = std::thread::Builder::new()
            .name("clift-flusher".into())
            .spawn(move || flusher.run());
        flusher
    })
}

/// Makes `queue` one the flusher looks at.
pub(super) fn register(queue: &Arc<Queue>) {
    let mut queues = flusher().queues.lock();
    queues.retain(|q| q.strong_count() > 0);
    queues.push(Arc::downgrade(queue));
}

/// The current tick, which a deferred command records.
pub(super) fn tick() -> u64 {
    flusher().tick.load(Ordering::Relaxed)
}

/// A command has just been deferred: wakes the flusher if it sleeps.
pub(super) fn deferred() {
    let f = flusher();
    // Pairs with the fence in `Flusher::run`: either the flusher sees the deferred command
    // in its last look before sleeping, or this sees it asleep.
    std::sync::atomic::fence(Ordering::SeqCst);
    if f.sleeping.load(Ordering::Relaxed) {
        let _guard = f.lock.lock();
        f.sleeping.store(false, Ordering::Relaxed);
        f.wake.notify_one();
    }
}

impl Flusher {
    fn run(&self) {
        let mut idle = 0;
        loop {
            {
                let mut guard = self.lock.lock();
                while self.sleeping.load(Ordering::Relaxed) {
                    self.wake.wait(&mut guard);
                }
            }
            std::thread::sleep(TICK);
            let tick = self.tick.fetch_add(1, Ordering::Relaxed) + 1;
            if self.flush_older_than(tick) {
                idle = 0;
                continue;
            }
            idle += 1;
            if idle < IDLE_TICKS {
                continue;
            }
            idle = 0;
            let _guard = self.lock.lock();
            self.sleeping.store(true, Ordering::Relaxed);
            std::sync::atomic::fence(Ordering::SeqCst);
            // A command deferred just before the store above: handled now (its enqueuer
            // may have seen the flusher awake).
            if self.flush_older_than(u64::MAX) {
                self.sleeping.store(false, Ordering::Relaxed);
            }
        }
    }

    /// Hands to the pool each queue's command deferred before `tick`; whether any queue
    /// has a deferred command that has not run.
    fn flush_older_than(&self, tick: u64) -> bool {
        let queues: Vec<Arc<Queue>> = self
            .queues
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let mut any = false;
        for queue in queues {
            let due = {
                let mut state = queue.state.lock();
                match &state.deferred {
                    Some((event, _)) if event.is_finished() => {
                        state.deferred = None;
                        None
                    }
                    Some((_, at)) if *at < tick => state.deferred.take(),
                    Some(_) => {
                        any = true;
                        None
                    }
                    None => None,
                }
            };
            if let Some((event, _)) = due {
                any = true;
                super::hand_to_pool(&event);
            }
        }
        any
    }
}
