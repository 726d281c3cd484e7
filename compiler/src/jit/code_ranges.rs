//! The address ranges of every JIT'd function that exists, so that a signal handler can tell
//! a fault in a kernel (which the runtime turns into an event error) from a fault anywhere
//! else in the process (which stays the process's business).
//!
//! The JIT module of each program build allocates its code through [`RecordingProvider`],
//! which registers each executable allocation here and removes it when the module's memory
//! is freed. The provider also keeps all of a module's code and data in one reserved range
//! ([`MODULE_RESERVES`]), so that the 32-bit PC-relative references between them always
//! reach. The registry is read from signal handlers, so [`contains`] only takes the lock
//! with `try_read` (an atomic compare-and-swap, no allocation, no blocking system call): a
//! writer holds it for one map insertion or removal, never while JIT code runs.

use std::collections::BTreeMap;
use std::io;
use std::sync::RwLock;

use cranelift_jit::{ArenaMemoryProvider, BranchProtection, JITMemoryKind, JITMemoryProvider};
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

/// The address space reserved for one module's code and data, largest first: inaccessible
/// until used, so it costs no memory, only address space, which a process under an
/// address-space limit (`RLIMIT_AS`) may not have; it then gets the next size.
///
/// Calls between a module's functions and its references to its own data are x64
/// `rel32` relocations, which reach ±2 GiB. Cranelift-jit's default provider maps each
/// function and data object separately, and the kernel places each mapping in whichever
/// hole of the address space fits it first, so in a process whose address space is
/// fragmented (large buffers mapped and freed, as the CTS's `test_basic` does on a 256 GiB
/// host) a small function can land in a hole gigabytes away from the kernel it calls, and
/// relocating the module then panics (`TryFromIntError` in `compiled_blob.rs`). One
/// reservation below 2 GiB keeps every distance in range; a program whose code and data
/// outgrow it fails to build with a message.
pub const MODULE_RESERVES: [usize; 3] = [256 << 20, 32 << 20, 4 << 20];

/// The largest alignment the arena gives (x86-64's 4 KiB pages).
const PAGE_ALIGN: u64 = 4096;

/// Cranelift-jit's arena provider, every executable allocation registered.
pub(crate) struct RecordingProvider {
    inner: ArenaMemoryProvider,
    /// The reservation's size, for messages.
    reserve: usize,
    /// The starts of the registered allocations.
    code: Vec<usize>,
}

impl RecordingProvider {
    /// A provider whose module's code and data lie in one reservation, of the first size of
    /// [`MODULE_RESERVES`] the address space has room for.
    pub(crate) fn new() -> io::Result<RecordingProvider> {
        let mut last = None;
        for reserve in MODULE_RESERVES {
            match RecordingProvider::with_reserve(reserve) {
                Ok(provider) => return Ok(provider),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("at least one size"))
    }

    /// A provider whose module's code and data lie in one reservation of `reserve` bytes.
    pub(crate) fn with_reserve(reserve: usize) -> io::Result<RecordingProvider> {
        let inner = ArenaMemoryProvider::new_with_size(reserve).map_err(|e| {
            io::Error::other(format!(
                "cannot reserve {} MiB of address space for the program's code: {e}",
                reserve >> 20
            ))
        })?;
        Ok(RecordingProvider {
            inner,
            reserve,
            code: Vec::new(),
        })
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
        // The arena asserts this; an error is the better answer for a host program.
        if align > PAGE_ALIGN {
            return Err(io::Error::other(format!(
                "an alignment of {align} bytes exceeds the {PAGE_ALIGN}-byte pages of JIT memory"
            )));
        }
        let ptr = self.inner.allocate(size, align, kind).map_err(|e| {
            io::Error::other(format!(
                "the program's code and data outgrow the {} MiB reserved for them: {e}",
                self.reserve >> 20
            ))
        })?;
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
        let mut provider = RecordingProvider::with_reserve(1 << 20).expect("reservation");
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

    #[test]
    fn every_allocation_of_a_module_lies_in_its_reservation() {
        let reserve = 64 << 20;
        let mut provider = RecordingProvider::with_reserve(reserve).expect("reservation");
        let mut spans = Vec::new();
        let mut take = |p: &mut RecordingProvider, size: usize, kind: JITMemoryKind| {
            let start = p.allocate(size, 16, kind).expect("allocation") as usize;
            spans.push((start, start + size));
        };
        take(&mut provider, 100, JITMemoryKind::Executable);
        take(&mut provider, 8 << 20, JITMemoryKind::ReadOnly);
        take(&mut provider, 3 << 20, JITMemoryKind::Writable);
        take(&mut provider, 5 << 20, JITMemoryKind::Executable);
        provider.finalize(BranchProtection::None).expect("finalize");
        // A late row: allocated after the first finalization, still in the reservation.
        take(&mut provider, 4096, JITMemoryKind::Executable);
        let low = spans.iter().map(|s| s.0).min().unwrap();
        let high = spans.iter().map(|s| s.1).max().unwrap();
        assert!(high - low <= reserve, "spread over {} bytes", high - low);
        // SAFETY: nothing runs from the provider's memory.
        unsafe { provider.free_memory() };
    }

    #[test]
    fn a_module_that_outgrows_its_reservation_gets_an_error() {
        let mut provider = RecordingProvider::with_reserve(1 << 20).expect("reservation");
        provider
            .allocate(600 << 10, 16, JITMemoryKind::Executable)
            .expect("fits");
        let err = provider
            .allocate(600 << 10, 16, JITMemoryKind::ReadOnly)
            .expect_err("beyond the reservation");
        assert!(
            err.to_string()
                .starts_with("the program's code and data outgrow the 1 MiB reserved for them"),
            "{err}"
        );
        let err = provider
            .allocate(64, 8192, JITMemoryKind::Writable)
            .expect_err("alignment beyond a page");
        assert_eq!(
            err.to_string(),
            "an alignment of 8192 bytes exceeds the 4096-byte pages of JIT memory"
        );
        // SAFETY: nothing runs from the provider's memory.
        unsafe { provider.free_memory() };
    }
}
