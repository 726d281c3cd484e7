//! The peak memory of a build, against the size of its source: a counting allocator
//! follows every byte the build allocates, on a kernel of 100,000 statements (1.1 MB of
//! source, the size that ran the compiler out of a 700 MiB limit before).
//!
//! The figures printed (`--nocapture`) are what `budget.rs`'s factors come from.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes live now and their peak.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = NOW.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call forwards to `System` with the caller's arguments; the counters are
// only statistics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            NOW.fetch_sub(layout.size() - new_size, Relaxed);
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A kernel of `n` plain statements.
fn big_kernel(n: usize) -> String {
    let mut s = String::from("kernel void big(global int* o) {\n  int x = 0;\n");
    for _ in 0..n {
        s.push_str("x = x + 1;\n");
    }
    s.push_str("  o[0] = x;\n}\n");
    s
}

#[test]
fn a_build_peaks_at_a_small_multiple_of_its_source() {
    let source = big_kernel(100_000);
    let options = clift_compiler::build::BuildOptions::default();
    // Warm up what every build shares (the host ISA, the builtin tables, the pool).
    clift_compiler::build::build("warm.cl", "kernel void k() {}", &options).expect("builds");
    let before = NOW.load(Relaxed);
    PEAK.store(before, Relaxed);
    let built = clift_compiler::build::build("big.cl", &source, &options).expect("builds");
    let peak = PEAK.load(Relaxed) - before;
    drop(built);
    let ratio = peak as f64 / source.len() as f64;
    eprintln!(
        "{} bytes of source: peak {:.1} MB above the start, {ratio:.0} bytes per source byte",
        source.len(),
        peak as f64 / 1e6
    );
    assert!(
        peak <= source.len() * clift_compiler::budget::PER_SOURCE_BYTE,
        "the build's peak ({ratio:.0} bytes per source byte) is above what the memory \
         budget predicts ({})",
        clift_compiler::budget::PER_SOURCE_BYTE
    );
}
