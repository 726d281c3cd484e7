//! The machine's own all-core streaming bandwidth, measured as STREAM measures it: one
//! thread per CPU, each pinned to its CPU and owning one contiguous part of every array
//! (OpenMP's static schedule), which it first touches itself, so that its pages are placed
//! where it runs; each loop timed from a barrier to a barrier, the first pass of each
//! loop a warm-up that is not counted, the best of the other passes kept.

use std::sync::Barrier;
use std::time::Instant;

use super::loops::{self, Loop, Stores};

/// The operations of a pass: STREAM's four loops, then a sum.
const OPS: usize = 5;

/// STREAM's scalar.
const SCALAR: f32 = 3.0;

/// Each thread's part of an array starts at a multiple of this many floats (a cache line),
/// so that no line is written by two threads.
const LINE: usize = 16;

/// GB/s of each loop (in [`Loop::ALL`]'s order), all threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Machine {
    pub normal: [f64; 4],
    pub non_temporal: [f64; 4],
    /// A sum over one array (not a STREAM loop; clpeak's bandwidth test reads only).
    pub read: f64,
}

impl Machine {
    pub fn gbs(&self, l: Loop, stores: Stores) -> f64 {
        let at = Loop::ALL.iter().position(|&m| m == l).unwrap_or(0);
        match stores {
            Stores::Normal => self.normal[at],
            Stores::NonTemporal => self.non_temporal[at],
        }
    }
}

/// Measures the machine with three arrays of `n` floats on `threads` threads, each loop
/// `passes` times after its warm-up.
pub fn machine(n: usize, threads: usize, passes: usize) -> Machine {
    let (mut a, mut b, mut c) = (Pages::new(n), Pages::new(n), Pages::new(n));
    measure(a.floats(), b.floats(), c.floats(), threads, passes)
}

/// Zeroed floats starting on a page boundary, whose pages the system has not handed out
/// yet (a zeroed allocation this large is a fresh mapping): the first write places them.
/// They ask for transparent huge pages, as clift's large buffers do (`MADV_HUGEPAGE`;
/// Linux's default mode gives them only to ranges that ask): the machine's streaming
/// bandwidth is measured without a TLB miss every 4 KiB (on the 2-core dev VM small pages
/// cost a third of a thread's vector add bandwidth).
pub(super) struct Pages {
    storage: Vec<f32>,
    start: usize,
    len: usize,
}

impl Pages {
    pub(super) fn new(len: usize) -> Pages {
        const PAGE_FLOATS: usize = 4096 / 4;
        let storage = vec![0.0f32; len + PAGE_FLOATS];
        let start = storage.as_ptr().align_offset(4096).min(PAGE_FLOATS);
        #[cfg(target_os = "linux")]
        // SAFETY: whole pages inside `storage`'s allocation, not yet touched; the advice
        // changes how they are backed, not their contents. Refused where transparent huge
        // pages are off: the pages stay small.
        unsafe {
            libc::madvise(
                storage.as_ptr().add(start) as *mut libc::c_void,
                len * 4 / 4096 * 4096,
                libc::MADV_HUGEPAGE,
            );
        }
        Pages {
            storage,
            start,
            len,
        }
    }

    pub(super) fn floats(&mut self) -> &mut [f32] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

/// STREAM over `a`, `b` and `c` (of equal length): each thread initializes its parts
/// (a = 1, b = 2, c = 0, then a = 2a, as STREAM does), then, for normal stores and then
/// for non-temporal ones, `passes + 1` times: c = a; b = s c; c = a + b; a = b + s c; and
/// a sum of a.
fn measure(a: &mut [f32], b: &mut [f32], c: &mut [f32], threads: usize, passes: usize) -> Machine {
    assert!(a.len() == b.len() && b.len() == c.len());
    let threads = threads.max(1);
    let n = a.len();
    let cpus = allowed_cpus();
    let barrier = Barrier::new(threads);
    let parts = split(a, threads)
        .into_iter()
        .zip(split(b, threads))
        .zip(split(c, threads));
    // Each thread's clock readings around each pass (variant, pass, loop): a pass lasts from
    // the first thread's start to the last thread's end.
    let rounds = 2 * (passes + 1) * OPS;
    let mut spans: Vec<(Instant, Instant)> = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = parts
            .enumerate()
            .map(|(t, ((a, b), c))| {
                let (barrier, cpu) = (&barrier, cpus.get(t % cpus.len().max(1)).copied());
                scope.spawn(move || {
                    if let Some(cpu) = cpu {
                        pin(cpu);
                    }
                    // STREAM's a = 1, then a = 2a: every page written here first.
                    a.fill(2.0);
                    b.fill(2.0);
                    c.fill(0.0);
                    let mut spans = Vec::with_capacity(rounds);
                    for stores in [Stores::Normal, Stores::NonTemporal] {
                        for _ in 0..=passes {
                            for op in Loop::ALL.map(Some).into_iter().chain([None]) {
                                barrier.wait();
                                let start = Instant::now();
                                match op {
                                    Some(l @ Loop::Copy) => {
                                        loops::run(l, stores, c, a, &[], SCALAR)
                                    }
                                    Some(l @ Loop::Scale) => {
                                        loops::run(l, stores, b, c, &[], SCALAR)
                                    }
                                    Some(l @ Loop::Add) => loops::run(l, stores, c, a, b, SCALAR),
                                    Some(l @ Loop::Triad) => loops::run(l, stores, a, b, c, SCALAR),
                                    None => {
                                        std::hint::black_box(loops::sum(std::hint::black_box(a)));
                                    }
                                }
                                spans.push((start, Instant::now()));
                                barrier.wait();
                            }
                        }
                    }
                    spans
                })
            })
            .collect();
        for w in workers {
            let theirs = w.join().expect("a streaming thread panicked");
            if spans.is_empty() {
                spans = theirs;
            } else {
                for (span, (start, end)) in spans.iter_mut().zip(theirs) {
                    *span = (span.0.min(start), span.1.max(end));
                }
            }
        }
    });
    // The best pass of each loop, the warm-up (each variant's first pass) left out.
    let mut best = [[f64::INFINITY; OPS]; 2];
    for (i, (start, end)) in spans.into_iter().enumerate() {
        let (at, round) = (i % OPS, i / OPS);
        let (pass, v) = (round % (passes + 1), round / (passes + 1));
        if pass > 0 {
            best[v][at] = best[v][at].min((end - start).as_secs_f64());
        }
    }
    let gbs = |v: usize| {
        let mut out = [0.0; 4];
        for (at, l) in Loop::ALL.into_iter().enumerate() {
            out[at] = (l.arrays() * n * 4) as f64 / best[v][at] / 1e9;
        }
        out
    };
    Machine {
        normal: gbs(0),
        non_temporal: gbs(1),
        read: (n * 4) as f64 / best[0][4].min(best[1][4]) / 1e9,
    }
}

/// `xs` in `parts` contiguous parts, each starting at a multiple of [`LINE`] floats; the
/// last takes the rest.
fn split(mut xs: &mut [f32], parts: usize) -> Vec<&mut [f32]> {
    let lines = xs.len() / LINE;
    let mut out = Vec::with_capacity(parts);
    let mut taken = 0;
    for p in 1..=parts {
        let end = if p == parts {
            xs.len() + taken
        } else {
            lines * p / parts * LINE
        };
        let (part, rest) = xs.split_at_mut(end - taken);
        out.push(part);
        xs = rest;
        taken = end;
    }
    out
}

/// The CPUs this process may run on (its affinity mask), in order; empty where unknown.
pub(super) fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed `cpu_set_t` is an empty set; the call writes at most its size.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: as above; pid 0 is this thread.
        if unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) } == 0 {
            return (0..libc::CPU_SETSIZE as usize)
                // SAFETY: `cpu` is below CPU_SETSIZE.
                .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
                .collect();
        }
    }
    Vec::new()
}

/// Binds the calling thread to `cpu` (as `OMP_PROC_BIND` does for STREAM); a failure leaves
/// it free to move.
pub(super) fn pin(cpu: usize) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed `cpu_set_t` is an empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `cpu` comes from the affinity mask, below CPU_SETSIZE; pid 0 is this
        // thread.
        unsafe {
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_arrays_ask_for_huge_pages() {
        let mut pages = Pages::new(8 << 20);
        let at = pages.floats().as_ptr() as usize + (4 << 20);
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        // Each mapping's header (`lo-hi perms ...`) comes before its `VmFlags:` line.
        let mut holds = false;
        let mut flags = None;
        for line in smaps.lines() {
            match line.strip_prefix("VmFlags:") {
                Some(f) if holds => flags = Some(f.to_string()),
                Some(_) => {}
                None => {
                    if let Some((lo, hi)) = line.split(' ').next().and_then(|r| r.split_once('-'))
                        && let (Ok(lo), Ok(hi)) =
                            (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        holds = lo <= at && at < hi;
                    }
                }
            }
        }
        let flags = flags.expect("the array's mapping");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
    }

    #[test]
    fn parts_start_on_cache_lines_and_cover_the_array() {
        let mut xs = vec![0.0f32; 100];
        let parts = split(&mut xs, 3);
        let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
        // 6 lines of 16: 2 each, the last with the 4 floats left over.
        assert_eq!(lens, [32, 32, 36]);
        let mut one = vec![0.0f32; 10];
        assert_eq!(
            split(&mut one, 4)
                .iter()
                .map(|p| p.len())
                .collect::<Vec<_>>(),
            [0, 0, 0, 10]
        );
    }

    /// After the measurement, the arrays hold what STREAM's recurrence gives after its
    /// 2 × (passes + 1) rounds, on every thread's part (STREAM's own check).
    #[test]
    fn every_part_runs_every_pass_of_every_loop() {
        let n = 1000;
        let (mut a, mut b, mut c) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
        let passes = 2;
        let m = measure(&mut a, &mut b, &mut c, 3, passes);
        let (mut x, mut y, mut z) = (2.0f32, 2.0f32, 0.0f32);
        for _ in 0..2 * (passes + 1) {
            z = x;
            y = SCALAR * z;
            z = x + y;
            x = y + SCALAR * z;
        }
        // 2 → c 2, b 6, c 8, a 30; then 30 → 30, 90, 120, 450; ...
        assert_eq!(
            (x, y, z),
            (
                2.0 * 15f32.powi(6),
                6.0 * 15f32.powi(5),
                8.0 * 15f32.powi(5)
            )
        );
        assert!(
            a.iter().all(|&v| v == x) && b.iter().all(|&v| v == y) && c.iter().all(|&v| v == z)
        );
        let figures = m.normal.iter().chain(&m.non_temporal).chain([&m.read]);
        assert!(figures.into_iter().all(|&g| g > 0.0 && g.is_finite()));
    }

    #[test]
    fn this_process_may_run_somewhere() {
        assert!(!allowed_cpus().is_empty());
    }
}
