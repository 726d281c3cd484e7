//! Handing the work-groups of one NDRange to threads.
//!
//! The thread that runs the command starts the range itself, and wakes helpers only for a
//! range worth it: it first runs a few groups alone (sharing nothing yet: no allocation, no
//! atomic), in batches that double, and wakes helpers
//! (no more than there are groups left) once the time spent or the time the rest would
//! take on this thread alone reaches [`WAKE_WORTH`]; a small or cheap range (a one-group
//! launch, 64 one-item groups of an empty kernel) wakes nobody. A worker then takes part
//! with its helpers; an application thread waiting for the command only waits, so that no
//! more threads run groups than the device has compute units. Every participant claims chunks of
//! consecutive groups from one atomic counter; a chunk is a share of what remains (half of
//! it divided by the participants, at least one group), so a large range costs a few dozen
//! claims in all and the last groups are still spread evenly. A chunk runs with the thread's
//! local-memory arena borrowed once, and computes its group ids incrementally: nothing is
//! allocated or locked per group.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::Thread;

use super::{ARENA, Block, Chunk};

/// A work-group function, as the launch passes it.
///
/// It is called once per chunk of groups, so that what is the same for every group of a
/// launch is set up once per chunk.
pub type GroupFn<'a> = dyn Fn(Chunk<'_>) + Sync + 'a;

/// One NDRange's groups and the claim counter its participants share.
struct Dispatch {
    groups: [usize; 3],
    total: usize,
    local_bytes: usize,
    participants: usize,
    /// The first group not yet claimed (may run past `total` by a few chunks).
    next: AtomicUsize,
    /// Groups finished (or abandoned by a panic).
    done: AtomicUsize,
    /// Whether a group panicked on a helper.
    panicked: AtomicBool,
    /// The thread that launched the range and waits for `done` to reach `total`.
    launcher: Thread,
    /// The work-group function with its lifetime erased. It is called only for a group
    /// claimed from `next` while groups remained, and the launcher does not return before
    /// every claimed group is done, so no call outlives the borrow it came from.
    work_group: *const GroupFn<'static>,
}

// SAFETY: `work_group` points to a `Sync` closure (shared calls are what it is for), used
// under the rule on the field; everything else is atomics or plain data.
unsafe impl Send for Dispatch {}
// SAFETY: as above.
unsafe impl Sync for Dispatch {}

/// Who runs a range beside its first groups, which the current thread runs alone.
#[derive(Clone, Copy, Debug)]
pub struct Helpers {
    /// Threads `spawn` may start (at most one per group left).
    pub count: usize,
    /// Whether the current thread claims groups with them (a worker), or only waits (an
    /// application thread: the workers are the device's compute units).
    pub launcher_takes_part: bool,
}

/// Runs every group of `groups`: the first ones on the current thread, the rest, where
/// worth it, on up to `helpers.count` threads started by `spawn` (with the current thread
/// where `helpers.launcher_takes_part`); returns when all have run. A panic in a group is
/// raised again here once every other claimed group has finished.
pub fn run(
    groups: [usize; 3],
    local_bytes: usize,
    helpers: Helpers,
    spawn: impl Fn(Box<dyn FnOnce() + Send>),
    work_group: &GroupFn<'_>,
) {
    let total = groups[0] * groups[1] * groups[2];
    let launcher = usize::from(helpers.launcher_takes_part);
    let participants = (helpers.count + launcher).min(total).max(1);
    if helpers.count == 0 || total <= 1 {
        run_chunk(groups, local_bytes, 0..total, work_group);
        return;
    }
    // Nothing is shared before helpers are needed: a range the launcher runs alone (a
    // one-group launch, a few cheap groups) allocates nothing and touches no other thread,
    // whatever the number of workers.
    let ran = run_alone_while_small(groups, local_bytes, total, work_group);
    if ran == total {
        return;
    }
    // SAFETY: only the lifetime changes (same fat pointer); see `Dispatch::work_group`, and
    // `WaitForAll` below, which keeps this frame alive until every claimed group is done,
    // unwinding included.
    let erased: *const GroupFn<'static> =
        unsafe { std::mem::transmute::<*const GroupFn<'_>, *const GroupFn<'static>>(work_group) };
    let dispatch = Arc::new(Dispatch {
        groups,
        total,
        local_bytes,
        participants,
        next: AtomicUsize::new(ran),
        done: AtomicUsize::new(ran),
        panicked: AtomicBool::new(false),
        launcher: std::thread::current(),
        work_group: erased,
    });
    let wait = WaitForAll(&dispatch);
    for _ in 0..(total - ran).min(participants - launcher) {
        let dispatch = Arc::clone(&dispatch);
        spawn(Box::new(move || {
            let helped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                dispatch.take_part(true);
            }));
            if helped.is_err() {
                dispatch.panicked.store(true, Ordering::Release);
            }
        }));
    }
    if helpers.launcher_takes_part {
        dispatch.take_part(false);
    }
    drop(wait);
    if dispatch.panicked.load(Ordering::Acquire) {
        panic!("a work-group panicked on a worker thread");
    }
}

/// The launcher's first groups, run alone in batches of 1, 2, 4, ... (at most
/// [`PROBE_BATCH`]) until the range is done or worth helpers: the time spent, or the time
/// the groups left would take at the rate so far, reaches [`WAKE_WORTH`]. Returns the
/// number of groups run (the first ones). A panic in a group unwinds from here: no helper
/// has started.
fn run_alone_while_small(
    groups: [usize; 3],
    local_bytes: usize,
    total: usize,
    work_group: &GroupFn<'_>,
) -> usize {
    let start = std::time::Instant::now();
    let (mut ran, mut batch) = (0usize, 1usize);
    while ran < total {
        let end = (ran + batch).min(total);
        run_chunk(groups, local_bytes, ran..end, work_group);
        ran = end;
        if ran < total && worth_helpers(start.elapsed(), ran, total - ran) {
            break;
        }
        batch = (batch * 2).min(PROBE_BATCH);
    }
    ran
}

/// Waits (also while unwinding) until every group of the dispatch is done.
struct WaitForAll<'a>(&'a Dispatch);

impl Drop for WaitForAll<'_> {
    fn drop(&mut self) {
        let d = self.0;
        let all_done = || (d.done.load(Ordering::Acquire) >= d.total).then_some(());
        // A helper that is still running a chunk usually finishes within microseconds: spin
        // a little before sleeping (`park` returns at once if already unparked).
        if crate::event::spin_until(SPIN, all_done).is_some() {
            return;
        }
        while all_done().is_none() {
            std::thread::park();
        }
    }
}

/// How long the launcher spins for its helpers before it sleeps.
const SPIN: std::time::Duration = std::time::Duration::from_micros(10);

/// The work below which waking a helper costs more than it saves: a sleeping thread takes
/// microseconds to wake, and the waker pays a system call.
pub const WAKE_WORTH: std::time::Duration = std::time::Duration::from_micros(16);

/// The largest batch the launcher runs alone between two looks at the clock.
const PROBE_BATCH: usize = 64;

/// Whether helpers are worth waking after `ran` groups took `spent` and `left` remain.
fn worth_helpers(spent: std::time::Duration, ran: usize, left: usize) -> bool {
    spent >= WAKE_WORTH || spent.mul_f64(left as f64 / ran.max(1) as f64) >= WAKE_WORTH
}

impl Dispatch {
    /// Claims and runs chunks until none remain (`helper`: not the launcher, which the
    /// last chunk must wake).
    fn take_part(&self, helper: bool) {
        while let Some(chunk) = self.claim() {
            self.run_claimed(chunk, helper);
        }
    }

    /// Runs a claimed chunk and counts it done.
    fn run_claimed(&self, chunk: Range<usize>, helper: bool) {
        let finished = Finished {
            dispatch: self,
            len: chunk.len(),
            helper,
        };
        // SAFETY: a claimed group: the launcher is still waiting (see `work_group`).
        let work_group = unsafe { &*self.work_group };
        run_chunk(self.groups, self.local_bytes, chunk, work_group);
        drop(finished);
    }

    /// The next chunk: half of what remains shared among the participants, at least one.
    fn claim(&self) -> Option<Range<usize>> {
        let seen = self.next.load(Ordering::Relaxed);
        if seen >= self.total {
            return None;
        }
        let chunk = ((self.total - seen) / (2 * self.participants)).max(1);
        let start = self.next.fetch_add(chunk, Ordering::Relaxed);
        (start < self.total).then(|| start..(start + chunk).min(self.total))
    }
}

/// Counts a chunk as done when dropped, also when its group panicked (so the launcher does
/// not wait forever); a helper's last one wakes the launcher.
struct Finished<'a> {
    dispatch: &'a Dispatch,
    len: usize,
    helper: bool,
}

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        let d = self.dispatch;
        if std::thread::panicking() {
            d.panicked.store(true, Ordering::Release);
        }
        // A helper holds the `Dispatch` by its `Arc`, so `d` stays valid after the count
        // lets the launcher return.
        if d.done.fetch_add(self.len, Ordering::AcqRel) + self.len == d.total && self.helper {
            d.launcher.unpark();
        }
    }
}

/// Runs groups `linear` (row-major over `groups`, dimension 0 fastest) with this thread's
/// arena as their local memory.
fn run_chunk(groups: [usize; 3], local_bytes: usize, linear: Range<usize>, f: &GroupFn<'_>) {
    if linear.is_empty() {
        return;
    }
    let words = local_bytes.div_ceil(size_of::<Block>());
    ARENA.with(|arena| {
        let mut arena = arena.borrow_mut();
        if arena.len() < words {
            arena.resize(words, Block([0; 128]));
        }
        let local = &mut arena[..words];
        // SAFETY: a `Block` slice viewed as its bytes: same memory, no padding (128 bytes
        // aligned to 128), and any byte pattern is a valid `u8`.
        let local =
            unsafe { std::slice::from_raw_parts_mut(local.as_mut_ptr().cast::<u8>(), local_bytes) };
        f(Chunk {
            ids: GroupIds::new(groups, linear),
            local,
        });
    });
}

/// The ids of a run of consecutive groups (row-major, dimension 0 fastest), computed
/// incrementally.
pub struct GroupIds {
    groups: [usize; 3],
    id: [usize; 3],
    left: usize,
}

impl GroupIds {
    fn new(groups: [usize; 3], linear: Range<usize>) -> GroupIds {
        let start = linear.start;
        GroupIds {
            groups,
            id: [
                start % groups[0],
                (start / groups[0]) % groups[1],
                start / (groups[0] * groups[1]),
            ],
            left: linear.len(),
        }
    }
}

impl Iterator for GroupIds {
    type Item = [usize; 3];

    #[inline]
    fn next(&mut self) -> Option<[usize; 3]> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let id = self.id;
        self.id[0] += 1;
        if self.id[0] == self.groups[0] {
            self.id[0] = 0;
            self.id[1] += 1;
            if self.id[1] == self.groups[1] {
                self.id[1] = 0;
                self.id[2] += 1;
            }
        }
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_are_woken_only_for_enough_work() {
        let us = std::time::Duration::from_micros;
        // 63 cheap groups left after one of 30 ns: 1.9 µs in all, done alone.
        assert!(!worth_helpers(std::time::Duration::from_nanos(30), 1, 63));
        // 2^20 of them: 31 ms, worth helpers at once.
        assert!(worth_helpers(
            std::time::Duration::from_nanos(30),
            1,
            1 << 20
        ));
        // One slow group is enough to tell.
        assert!(worth_helpers(us(40), 1, 1));
        // Time spent alone counts even when the estimate is small.
        assert!(worth_helpers(us(16), 100, 1));
        assert!(!worth_helpers(us(8), 100, 100));
    }

    #[test]
    fn a_cheap_range_wakes_no_helper_and_a_slow_one_wakes_them() {
        let spawned = AtomicUsize::new(0);
        let ran = AtomicUsize::new(0);
        let count = |c: Chunk<'_>| {
            ran.fetch_add(c.ids.count(), Ordering::Relaxed);
        };
        // A job dropped unrun: the launcher would still claim every group itself. The first
        // run pays for first touches (thread-locals, the clock), and a loaded machine may
        // preempt the launcher mid-probe: of five runs, one at least wakes nobody.
        let quiet = (0..5)
            .filter(|_| {
                let before = spawned.load(Ordering::Relaxed);
                let spawn = |_job| {
                    spawned.fetch_add(1, Ordering::Relaxed);
                };
                run([4, 1, 1], 0, WORKER_WITH_3, spawn, &count);
                spawned.load(Ordering::Relaxed) == before
            })
            .count();
        assert!(quiet >= 1, "helpers woken for 4 empty groups in every run");
        assert_eq!(ran.load(Ordering::Relaxed), 5 * 4);
        // Groups of 2 ms: the first one tells that helpers are worth it.
        let helpers = std::sync::Mutex::new(Vec::new());
        let slow = AtomicUsize::new(0);
        run(
            [8, 1, 1],
            0,
            WORKER_WITH_3,
            |job| helpers.lock().unwrap().push(std::thread::spawn(job)),
            &|c| {
                for _ in c.ids {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    slow.fetch_add(1, Ordering::Relaxed);
                }
            },
        );
        let helpers = helpers.into_inner().unwrap();
        assert_eq!(helpers.len(), 3);
        helpers.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(slow.load(Ordering::Relaxed), 8);
    }

    /// A worker launching, with 3 more threads to start.
    const WORKER_WITH_3: Helpers = Helpers {
        count: 3,
        launcher_takes_part: true,
    };

    /// An application thread waiting for a range worth helpers runs only its first groups,
    /// then sleeps while the helpers (the device's workers) run the rest; a cheap range it
    /// runs alone, waking nobody.
    #[test]
    fn an_application_thread_hands_a_long_range_to_the_workers_and_waits() {
        let waiting = Helpers {
            count: 2,
            launcher_takes_part: false,
        };
        let here = std::thread::current().id();
        let ran_here = AtomicUsize::new(0);
        let ran_elsewhere = AtomicUsize::new(0);
        let helpers = std::sync::Mutex::new(Vec::new());
        run(
            [12, 1, 1],
            0,
            waiting,
            |job| helpers.lock().unwrap().push(std::thread::spawn(job)),
            &|c| {
                for _ in c.ids {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    let counter = if std::thread::current().id() == here {
                        &ran_here
                    } else {
                        &ran_elsewhere
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                }
            },
        );
        let helpers = helpers.into_inner().unwrap();
        // Both workers, not one fewer for the launcher.
        assert_eq!(helpers.len(), 2);
        helpers.into_iter().for_each(|h| h.join().unwrap());
        // One 2 ms group tells that helpers are worth it; the other 11 ran on them.
        assert_eq!(ran_here.load(Ordering::Relaxed), 1);
        assert_eq!(ran_elsewhere.load(Ordering::Relaxed), 11);
        // Four empty groups: no helper (of five runs, one at least, as above).
        let spawned = AtomicUsize::new(0);
        let quiet = (0..5)
            .filter(|_| {
                let before = spawned.load(Ordering::Relaxed);
                run(
                    [4, 1, 1],
                    0,
                    waiting,
                    |job| {
                        spawned.fetch_add(1, Ordering::Relaxed);
                        std::thread::spawn(job);
                    },
                    &|_| {},
                );
                spawned.load(Ordering::Relaxed) == before
            })
            .count();
        assert!(quiet >= 1, "helpers woken for 4 empty groups in every run");
    }

    #[test]
    fn ids_run_row_major_from_any_start() {
        let ids: Vec<_> = GroupIds::new([3, 2, 2], 4..9).collect();
        assert_eq!(ids, [[1, 1, 0], [2, 1, 0], [0, 0, 1], [1, 0, 1], [2, 0, 1]]);
    }

    #[test]
    fn chunks_shrink_with_what_remains_and_cover_every_group_once() {
        let nothing: &GroupFn<'static> = &|_| {};
        let d = Dispatch {
            groups: [1000, 1, 1],
            total: 1000,
            local_bytes: 0,
            participants: 2,
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            launcher: std::thread::current(),
            work_group: nothing,
        };
        let mut chunks = Vec::new();
        while let Some(c) = d.claim() {
            chunks.push(c);
        }
        // A quarter of what remains each time (two participants), then single groups.
        assert_eq!(chunks[0], 0..250);
        assert_eq!(chunks[1], 250..437);
        assert_eq!(chunks.last(), Some(&(999..1000)));
        assert!(chunks.windows(2).all(|w| w[0].end == w[1].start));
        assert!(chunks.len() < 40, "{} claims", chunks.len());
    }
}
