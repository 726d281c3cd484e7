//! The worker pool of a device and the NDRange runner.
//!
//! Each device has a rayon pool of one thread per compute unit. Commands whose wait lists
//! are satisfied are spawned onto it; an NDRange is split over the workers as ranges of
//! work-groups that rayon's work stealing divides adaptively (large chunks while many
//! remain, smaller ones at the end), so every core stays busy and contention stays low.
//! Each worker thread owns a local-memory arena that it reuses for every work-group it runs.

use std::cell::RefCell;

use rayon::prelude::*;

use crate::error::{ClResult, fail};
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

/// What a work-group gets: its id and its local memory (whose contents OpenCL leaves
/// undefined at the start of a work-group, so the arena is not cleared between groups).
pub struct GroupContext<'a> {
    pub group_id: [usize; 3],
    /// The work-group's `__local` memory, 128-byte aligned.
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

    /// Copies `len` bytes from `src` to `dst` (which may overlap only if identical), large
    /// copies split over every worker: one core's copy bandwidth is a fraction of what the
    /// memory system delivers to all of them.
    ///
    /// # Safety
    /// `src` must be valid for reads and `dst` for writes of `len` bytes, and no one else may
    /// write either range during the copy.
    pub unsafe fn copy(&self, src: *const u8, dst: *mut u8, len: usize) {
        const MIN_CHUNK: usize = 1 << 20;
        let chunks = (len / MIN_CHUNK).min(self.threads() * 4);
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

    /// Runs every work-group of a `groups[0] × groups[1] × groups[2]` range, each with
    /// `local_bytes` of local memory, on all workers; returns when all are done.
    pub fn run_ndrange(
        &self,
        groups: [usize; 3],
        local_bytes: usize,
        work_group: &(dyn Fn(GroupContext<'_>) + Sync),
    ) {
        let total = groups[0] * groups[1] * groups[2];
        let words = local_bytes.div_ceil(size_of::<Block>());
        self.pool.install(|| {
            (0..total).into_par_iter().for_each(|linear| {
                let group_id = [
                    linear % groups[0],
                    (linear / groups[0]) % groups[1],
                    linear / (groups[0] * groups[1]),
                ];
                ARENA.with(|arena| {
                    let mut arena = arena.borrow_mut();
                    if arena.len() < words {
                        arena.resize(words, Block([0; 128]));
                    }
                    let local = &mut arena[..words];
                    // SAFETY: a `Block` slice viewed as its bytes: same memory, no padding
                    // (128 bytes aligned to 128), and any byte pattern is a valid `u8`.
                    let local = unsafe {
                        std::slice::from_raw_parts_mut(local.as_mut_ptr().cast::<u8>(), local_bytes)
                    };
                    work_group(GroupContext { group_id, local });
                });
            });
        });
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
        exec.run_ndrange(groups, 64, &|g| {
            assert_eq!(g.local.len(), 64);
            assert_eq!(g.local.as_ptr() as usize % 128, 0);
            // A work-group's local memory is its own while it runs.
            g.local.fill(g.group_id[0] as u8);
            std::thread::yield_now();
            assert!(g.local.iter().all(|&b| b == g.group_id[0] as u8));
            assert!(seen.lock().unwrap().insert(g.group_id));
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
        exec.run_ndrange([input.len() / group_size, 1, 1], group_size * 8, &|g| {
            let base = g.group_id[0] * group_size;
            // Stage the group's values in local memory, then reduce them.
            for i in 0..group_size {
                g.local[i * 8..i * 8 + 8].copy_from_slice(&input[base + i].to_ne_bytes());
            }
            let part: usize = g
                .local
                .chunks_exact(8)
                .map(|c| usize::from_ne_bytes(c.try_into().unwrap()))
                .sum();
            sum.fetch_add(part, Ordering::Relaxed);
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
    fn large_ranges_use_every_worker() {
        let exec = Executor::new(2).unwrap();
        let threads = Mutex::new(HashSet::new());
        exec.run_ndrange([64, 1, 1], 0, &|_| {
            threads.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(2));
        });
        assert_eq!(threads.into_inner().unwrap().len(), 2);
    }
}
