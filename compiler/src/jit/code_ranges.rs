//! The address ranges of every JIT'd function that exists, so that a signal handler can tell
//! a fault in a kernel (which the runtime turns into an event error) from a fault anywhere
//! else in the process (which stays the process's business).
//!
//! The JIT module of each program build allocates its code through [`RecordingProvider`],
//! which registers each executable allocation here and removes it when the module's memory
//! is freed. The registry is read from signal handlers, so [`contains`] only takes the lock
//! with `try_read` (an atomic compare-and-swap, no allocation, no blocking system call): a
//! writer holds it for one map insertion or removal, never while JIT code runs.

use std::collections::BTreeMap;
use std::io;
use std::sync::RwLock;

use cranelift_jit::{BranchProtection, JITMemoryKind, JITMemoryProvider, SystemMemoryProvider};
use cranelift_module::ModuleResult;

/// Start address → end address (exclusive) of each live code allocation.
static RANGES: RwLock<BTreeMap<usize, usize>> = RwLock::new(BTreeMap::new());

fn add(start: usize, len: usize) {
    let mut ranges = RANGES.write().unwrap_or_else(|e| e.into_inner());
    ranges.insert(start, start + len);
}

fn remove(start: usize) {
    let mut ranges = RANGES.write().unwrap_or_else(|e| e.into_inner());
    ranges.remove(&start);
}

/// Whether `pc` lies in the code of a live JIT module.
///
/// Async-signal-safe as long as the calling thread does not itself hold the registry's lock,
/// which is true of any thread running JIT code: the lock is only taken around a map update.
/// Should another thread be updating the map, the call spins until it is done (bounded, and
/// answers `false` if the lock never frees).
pub fn contains(pc: usize) -> bool {
    for _ in 0..(1 << 24) {
        match RANGES.try_read() {
            Ok(ranges) => return lookup(&ranges, pc),
            // A thread panicked while updating: the map itself is consistent (an insertion or
            // removal either happened or not).
            Err(std::sync::TryLockError::Poisoned(ranges)) => {
                return lookup(&ranges.into_inner(), pc);
            }
            Err(std::sync::TryLockError::WouldBlock) => std::hint::spin_loop(),
        }
    }
    false
}

fn lookup(ranges: &BTreeMap<usize, usize>, pc: usize) -> bool {
    ranges
        .range(..=pc)
        .next_back()
        .is_some_and(|(_, &end)| pc < end)
}

/// Cranelift-jit's own memory provider, with every executable allocation registered.
pub(crate) struct RecordingProvider {
    inner: SystemMemoryProvider,
    /// The starts of the registered allocations.
    code: Vec<usize>,
}

impl RecordingProvider {
    pub(crate) fn new() -> RecordingProvider {
        RecordingProvider {
            inner: SystemMemoryProvider::new(),
            code: Vec::new(),
        }
    }

    fn unregister(&mut self) {
        for start in self.code.drain(..) {
            remove(start);
        }
    }
}

impl JITMemoryProvider for RecordingProvider {
    fn allocate(&mut self, size: usize, align: u64, kind: JITMemoryKind) -> io::Result<*mut u8> {
        let executable = matches!(kind, JITMemoryKind::Executable);
        let ptr = self.inner.allocate(size, align, kind)?;
        if executable && size > 0 {
            add(ptr as usize, size);
            self.code.push(ptr as usize);
        }
        Ok(ptr)
    }

    unsafe fn free_memory(&mut self) {
        // Unregistered first: once freed, the addresses may be reused by anything.
        self.unregister();
        // SAFETY: the caller's contract (no code of the module runs any more).
        unsafe { self.inner.free_memory() };
    }

    fn finalize(&mut self, branch_protection: BranchProtection) -> ModuleResult<()> {
        self.inner.finalize(branch_protection)
    }
}

impl Drop for RecordingProvider {
    fn drop(&mut self) {
        // A module dropped without `free_memory` leaks its code (cranelift-jit's choice);
        // nothing can call it any more, so it is no kernel's code either.
        self.unregister();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_find_exactly_the_registered_ranges() {
        // Addresses no real allocation uses (the registry is process-wide).
        let base = usize::MAX - (1 << 20);
        add(base, 0x100);
        add(base + 0x1000, 0x10);
        assert!(contains(base));
        assert!(contains(base + 0xff));
        assert!(!contains(base + 0x100));
        assert!(!contains(base - 1));
        assert!(contains(base + 0x100f));
        assert!(!contains(base + 0x1010));
        remove(base);
        assert!(!contains(base));
        assert!(contains(base + 0x1000));
        remove(base + 0x1000);
        assert!(!contains(base + 0x1000));
    }

    #[test]
    fn a_modules_code_is_registered_until_its_memory_is_freed() {
        let mut provider = RecordingProvider::new();
        let code = provider
            .allocate(64, 16, JITMemoryKind::Executable)
            .expect("allocation") as usize;
        let data = provider
            .allocate(64, 16, JITMemoryKind::Writable)
            .expect("allocation") as usize;
        assert!(contains(code) && contains(code + 63));
        assert!(!contains(data));
        // SAFETY: nothing runs from the provider's memory.
        unsafe { provider.free_memory() };
        assert!(!contains(code));
    }
}
