//! The kernel watchdog (`CLIFT_KERNEL_TIMEOUT=seconds`): a launch that runs past its time is
//! stopped, and its event ends with an error like a kernel fault.
//!
//! Each launch, while a timeout is set, arms a deadline here. One background thread sleeps
//! until the earliest deadline; when a launch passes it, the thread sets that launch's flag,
//! which the loop back edges of its kernel read (`clift_compiler::jit::watchdog`). The
//! kernel traps at its next back edge and the fault handler (`crate::fault`) returns it to
//! the worker; the launch's remaining work-groups are skipped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

/// A launch's deadline, armed until dropped.
pub struct Armed {
    late: Arc<AtomicBool>,
}

impl Armed {
    /// The flag the generated code reads (valid while `self` lives).
    pub fn flag(&self) -> *const AtomicBool {
        Arc::as_ptr(&self.late)
    }

    /// Whether the launch ran past its deadline.
    pub fn is_late(&self) -> bool {
        self.late.load(Ordering::Relaxed)
    }
}

struct Entry {
    deadline: Instant,
    late: Arc<AtomicBool>,
}

struct Watchdog {
    entries: Mutex<Vec<Entry>>,
    changed: Condvar,
}

fn watchdog() -> Option<&'static Watchdog> {
    static WATCHDOG: OnceLock<Option<&'static Watchdog>> = OnceLock::new();
    *WATCHDOG.get_or_init(|| {
        let dog: &'static Watchdog = Box::leak(Box::new(Watchdog {
            entries: Mutex::new(Vec::new()),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("clift-watchdog".into())
            .spawn(move || dog.run())
            .ok()?;
        Some(dog)
    })
}

/// Arms a deadline `timeout` from now for a launch, if `CLIFT_KERNEL_TIMEOUT` sets one (the
/// compiler emitted the checks only then).
pub fn arm() -> Option<Armed> {
    arm_for(clift_compiler::jit::watchdog::timeout()?)
}

/// Arms a deadline `timeout` from now (`None` if the watchdog thread cannot start).
pub fn arm_for(timeout: Duration) -> Option<Armed> {
    let dog = watchdog()?;
    let late = Arc::new(AtomicBool::new(false));
    dog.entries.lock().push(Entry {
        deadline: Instant::now() + timeout,
        late: Arc::clone(&late),
    });
    dog.changed.notify_one();
    Some(Armed { late })
}

/// The flag a launch's work-group context points at: its own when armed; a flag that is
/// never set when a timeout is set but the watchdog could not start (the generated code reads
/// it all the same); null without a timeout (no code reads it).
pub fn flag_of(armed: Option<&Armed>) -> *const AtomicBool {
    static NEVER_LATE: AtomicBool = AtomicBool::new(false);
    match armed {
        Some(armed) => armed.flag(),
        None if clift_compiler::jit::watchdog::timeout().is_some() => &NEVER_LATE,
        None => std::ptr::null(),
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        let Some(dog) = watchdog() else { return };
        dog.entries
            .lock()
            .retain(|e| !Arc::ptr_eq(&e.late, &self.late));
    }
}

impl Watchdog {
    fn run(&self) {
        let mut entries = self.entries.lock();
        loop {
            let now = Instant::now();
            let mut next = None::<Instant>;
            for e in entries.iter().filter(|e| !e.late.load(Ordering::Relaxed)) {
                if e.deadline <= now {
                    e.late.store(true, Ordering::Relaxed);
                } else {
                    next = Some(next.map_or(e.deadline, |n| n.min(e.deadline)));
                }
            }
            match next {
                Some(deadline) => {
                    self.changed.wait_until(&mut entries, deadline);
                }
                None => self.changed.wait(&mut entries),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_past_its_deadline_is_late_and_the_others_are_not() {
        let on_time = arm_for(Duration::from_secs(3600)).expect("watchdog");
        let late = arm_for(Duration::from_millis(20)).expect("watchdog");
        let started = Instant::now();
        while !late.is_late() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "never marked late"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!on_time.is_late());
        // SAFETY: the flag lives while `late` does.
        assert!(unsafe { (*late.flag()).load(Ordering::Relaxed) });
        drop(late);
        drop(on_time);
    }
}
