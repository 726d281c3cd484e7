//! The worker pool of a device and the NDRange runner.
//!
//! Each device has a rayon pool of one thread per compute unit. Commands whose wait lists
//! are satisfied are spawned onto it; an NDRange's work-groups are claimed in chunks by the
//! thread that runs the command and by as many helpers as there are groups for
//! ([`groups`]). Each thread owns a local-memory arena that it reuses for every work-group
//! it runs.

mod groups;
mod stack;

use std::cell::RefCell;

use rayon::prelude::*;

pub use groups::{GroupFn, GroupIds};

use crate::error::{ClResult, fail};
use crate::memory::fill::fill_pattern;
use khronos_headers::CL_OUT_OF_RESOURCES;

/// A device's workers.
pub struct Executor {
    pool: rayon::ThreadPool,
}

/// The unit of a local-memory arena: 128 bytes aligned to 128, the largest alignment of an
/// OpenCL C type (`clift_compiler::kernel::MAX_ALIGN`), so that local memory starts at it.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Block([u8; 128]);

thread_local! {
    /// This worker's local-memory arena (grown on demand, kept between work-groups).
    static ARENA: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// A run of work-groups for one thread: their ids, and the local memory each uses in turn
/// (OpenCL leaves its contents undefined at the start of a work-group, so the arena is not
/// cleared between groups).
pub struct Chunk<'a> {
    pub ids: GroupIds,
    /// The work-groups' `__local` memory, 128-byte aligned.
    pub local: &'a mut [u8],
}

impl Executor {
    /// A pool of `threads` workers named after the device.
    pub fn new(threads: usize) -> ClResult<Executor> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("clift-worker-{i}"))
            .stack_size(crate::device::limits::WORKER_STACK_SIZE)
            .build()
            .or(fail(CL_OUT_OF_RESOURCES))?;
        Ok(Executor { pool })
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Runs `job` on a worker, in the background.
    pub fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        self.pool.spawn(job);
    }

    /// How many parts a copy or fill of `len` bytes is split into: parts of at least 1 MiB,
    /// at most four per worker (fewer than 2: done on the calling thread).
    fn memory_parts(&self, len: usize) -> usize {
        const MIN_PART: usize = 1 << 20;
        (len / MIN_PART).min(self.threads() * 4)
    }

    /// Copies `len` bytes from `src` to `dst` (which may overlap only if identical), large
    /// copies split over every worker: one core's copy bandwidth is a fraction of what the
    /// memory system delivers to all of them.
    ///
    /// # Safety
    /// `src` must be valid for reads and `dst` for writes of `len` bytes, and no one else may
    /// write either range during the copy.
    pub unsafe fn copy(&self, src: *const u8, dst: *mut u8, len: usize) {
        let chunks = self.memory_parts(len);
        if chunks < 2 {
            // SAFETY: the caller's contract.
            unsafe { std::ptr::copy(src, dst, len) };
            return;
        }
        let chunk = len.div_ceil(chunks);
        let (src, dst) = (src as usize, dst as usize);
        self.pool.install(|| {
            (0..chunks).into_par_iter().for_each(|i| {
                let start = i * chunk;
                let n = chunk.min(len - start);
                // SAFETY: chunk `i` lies inside both ranges (the caller's contract), and the
                // chunks are disjoint.
                unsafe { std::ptr::copy((src + start) as *const u8, (dst + start) as *mut u8, n) };
            });
        });
    }

    /// Fills `target` with copies of `pattern` from its start (`memory::fill`), large fills
    /// split over every worker as copies are. Each part starts at a whole repetition.
    pub fn fill(&self, target: &mut [u8], pattern: &[u8]) {
        let chunks = self.memory_parts(target.len());
        if chunks < 2 || pattern.is_empty() {
            fill_pattern(target, pattern);
            return;
        }
        let chunk = target.len().div_ceil(chunks).div_ceil(pattern.len()) * pattern.len();
        self.pool.install(|| {
            target
                .par_chunks_mut(chunk)
                .for_each(|part| fill_pattern(part, pattern));
        });
    }

    /// Runs every work-group of a `groups[0] × groups[1] × groups[2]` range, each with
    /// `local_bytes` of local memory, on at most every worker; returns when all are done.
    ///
    /// The calling thread runs the first groups itself, so a small range runs without
    /// waking or waiting for anyone: it is a worker, or a thread waiting for the command
    /// (`clFinish`, `clWaitForEvents`) that has `stack_bytes` of stack to spare beyond a
    /// margin. Another thread hands the range to a worker and waits for it. A range worth
    /// helpers runs on the workers only: a worker takes part with the others, a waiting
    /// application thread hands the rest to all of them and sleeps. (Taking part too, it
    /// made one thread more than the device's compute units: clpeak's float16 read at 2
    /// units, 270-900 preemptions per worker in 88 launches, 50-160 once it slept, and the
    /// read's median 28.6 GB/s against 30.1 after, PoCL 30.3.)
    pub fn run_ndrange(
        &self,
        groups: [usize; 3],
        local_bytes: usize,
        stack_bytes: usize,
        work_group: &GroupFn<'_>,
    ) {
        let dispatch = || {
            let on_worker = self.pool.current_thread_index().is_some();
            let helpers = self.threads() - usize::from(on_worker);
            groups::run(
                groups,
                local_bytes,
                groups::Helpers {
                    count: helpers,
                    launcher_takes_part: on_worker,
                },
                |job| self.pool.spawn(job),
                work_group,
            )
        };
        let here = self.pool.current_thread_index().is_some()
            || stack::left()
                .is_some_and(|left| left >= stack_bytes.saturating_add(stack::INLINE_MARGIN));
        if here {
            dispatch();
        } else {
            self.pool.install(dispatch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_group_runs_once_with_its_own_local_memory() {
        let exec = Executor::new(4).unwrap();
        let seen = Mutex::new(HashSet::new());
        let groups = [5, 3, 2];
        exec.run_ndrange(groups, 64, 0, &|c| {
            assert_eq!(c.local.len(), 64);
            assert_eq!(c.local.as_ptr() as usize % 128, 0);
            for id in c.ids {
                // A work-group's local memory is its own while it runs.
                c.local.fill(id[0] as u8);
                std::thread::yield_now();
                assert!(c.local.iter().all(|&b| b == id[0] as u8));
                assert!(seen.lock().unwrap().insert(id));
            }
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 30);
        assert!(seen.contains(&[4, 2, 1]));
    }

    #[test]
    fn a_reduction_over_work_groups_is_exact() {
        let exec = Executor::new(3).unwrap();
        let input: Vec<usize> = (0..10_000).collect();
        let sum = AtomicUsize::new(0);
        let group_size = 100;
        exec.run_ndrange([input.len() / group_size, 1, 1], group_size * 8, 0, &|c| {
            for id in c.ids {
                let base = id[0] * group_size;
                // Stage the group's values in local memory, then reduce them.
                for i in 0..group_size {
                    c.local[i * 8..i * 8 + 8].copy_from_slice(&input[base + i].to_ne_bytes());
                }
                let part: usize = c
                    .local
                    .chunks_exact(8)
                    .map(|c| usize::from_ne_bytes(c.try_into().unwrap()))
                    .sum();
                sum.fetch_add(part, Ordering::Relaxed);
            }
        });
        assert_eq!(sum.into_inner(), 10_000 * 9_999 / 2);
    }

    #[test]
    fn parallel_copies_copy_every_byte() {
        let exec = Executor::new(3).unwrap();
        for len in [0, 5, (1 << 20) + 3, (5 << 20) + 17] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let mut dst = vec![0u8; len];
            // SAFETY: both vectors hold `len` bytes and are distinct.
            unsafe { exec.copy(src.as_ptr(), dst.as_mut_ptr(), len) };
            assert!(src == dst, "length {len}");
        }
    }

    #[test]
    fn parallel_fills_start_each_part_at_a_whole_pattern() {
        let exec = Executor::new(3).unwrap();
        // A 12-byte pattern: parts of a plain division of the length would cut it.
        let pattern: Vec<u8> = (1..=12).collect();
        for len in [0, 24, (2 << 20) + 12, (5 << 20) + 60] {
            let mut target = vec![0u8; len];
            exec.fill(&mut target, &pattern);
            let wrong = (0..len).find(|&i| target[i] != pattern[i % 12]);
            assert_eq!(wrong, None, "length {len}");
        }
    }

    #[test]
    fn large_ranges_use_every_worker() {
        let exec = Executor::new(2).unwrap();
        let ran_on = Mutex::new(Vec::new());
        exec.run_ndrange([64, 1, 1], 0, 0, &|c| {
            for _ in c.ids {
                let name = std::thread::current().name().map(str::to_string);
                ran_on.lock().unwrap().push(name);
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        });
        let ran_on = ran_on.into_inner().unwrap();
        let workers: HashSet<_> = ran_on
            .iter()
            .flatten()
            .filter(|n| n.starts_with("clift-worker-"))
            .collect();
        assert_eq!(workers.len(), 2);
        // This thread (not a worker) ran the first group, which told that helpers were
        // worth it, then waited: no third thread ran beside the two workers.
        let here = std::thread::current().name().map(str::to_string);
        assert_eq!(ran_on.iter().filter(|n| **n == here).count(), 1);
        // From a worker, the launcher takes part with one helper.
        let on_worker = Mutex::new(HashSet::new());
        exec.pool.install(|| {
            exec.run_ndrange([64, 1, 1], 0, 0, &|c| {
                for _ in c.ids {
                    on_worker
                        .lock()
                        .unwrap()
                        .insert(std::thread::current().id());
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            })
        });
        assert_eq!(on_worker.into_inner().unwrap().len(), 2);
    }

    #[test]
    fn a_single_group_runs_on_the_calling_thread_if_its_stack_allows() {
        let exec = Executor::new(2).unwrap();
        let ran_on = Mutex::new(Vec::new());
        let record = |c: Chunk<'_>| {
            for _ in c.ids {
                let name = std::thread::current().name().map(str::to_string);
                ran_on.lock().unwrap().push(name);
            }
        };
        let here = std::thread::current().name().map(str::to_string);
        exec.run_ndrange([1, 1, 1], 0, 0, &record);
        // A kernel whose private memory does not fit this thread's stack goes to a worker.
        exec.run_ndrange([1, 1, 1], 0, 1 << 40, &record);
        let ran_on = ran_on.into_inner().unwrap();
        assert_eq!(ran_on[0], here);
        assert!(ran_on[1].as_deref().unwrap().starts_with("clift-worker-"));
    }

    #[test]
    fn a_panicking_group_is_raised_once_the_others_are_done() {
        let exec = Executor::new(2).unwrap();
        let ran = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            exec.run_ndrange([64, 1, 1], 0, 0, &|c| {
                for id in c.ids {
                    assert_ne!(id[0], 40, "group 40 fails");
                    ran.fetch_add(1, Ordering::Relaxed);
                }
            })
        }));
        assert!(result.is_err());
        // Nothing runs after the call has returned, and the workers still work.
        let after = ran.load(Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(ran.load(Ordering::Relaxed), after);
        let count = AtomicUsize::new(0);
        exec.run_ndrange([100, 1, 1], 0, 0, &|c| {
            count.fetch_add(c.ids.count(), Ordering::Relaxed);
        });
        assert_eq!(count.into_inner(), 100);
    }
}
