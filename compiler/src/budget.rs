//! The memory a build may use: a build that would run the process out of memory fails
//! with "out of host memory" before it does.
//!
//! Rust aborts the process when an allocation fails, and a global allocator may not
//! unwind, so a build cannot recover from the failure itself; it has to stop before it.
//! The build asks this module at its stage boundaries, and the preprocessor in its main
//! loop, whether the next stage's memory — predicted from what the build holds so far
//! (source bytes, tokens) with the bytes per unit measured on large programs
//! (`tests/build_memory.rs`) — fits in what the process can still get: the least of
//! `RLIMIT_AS` less the address space in use, `RLIMIT_DATA` less the data in use, the
//! memory cgroup's limit less its usage, and the system's available memory. A build that
//! does not fit is refused ([`OutOfMemory`]); the runtime answers `CL_OUT_OF_HOST_MEMORY`
//! and the process lives on.
//!
//! The prediction is an estimate: a stage that needs more than predicted can still fail in
//! the allocator. The checks make that a matter of a wrong factor, not of every large
//! program; the factors carry a margin.

use std::cell::Cell;

/// Bytes a build holds per byte of source, all stages together, at its peak (measured:
/// about 110 on a 100,000-statement kernel, `tests/build_memory.rs`, once the tokens, the
/// syntax tree and the typed tree stopped overlapping; about 200 before; the rest is
/// margin).
pub const PER_SOURCE_BYTE: usize = 300;
/// Bytes per preprocessed token at the peak of the later stages (parse, sema, codegen).
pub const PER_TOKEN: usize = 600;
/// Bytes per preprocessed token that code generation adds to the typed tree.
pub const CODEGEN_PER_TOKEN: usize = 400;
/// Bytes one preprocessed token holds (the token and its spelling).
pub const TOKEN_BYTES: usize = 128;
/// Below this a prediction is not checked: a build this small is not what runs a process
/// out of memory, and reading the limits costs more than it.
const NEGLIGIBLE: usize = 16 << 20;

/// A build refused for lack of memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    /// The stage that would have run out.
    pub stage: &'static str,
    /// The bytes it was predicted to need.
    pub needed: usize,
    /// The bytes the process could still get.
    pub available: usize,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "out of host memory: {} needs about {} MiB, {} MiB are available",
            self.stage,
            self.needed >> 20,
            self.available >> 20
        )
    }
}

thread_local! {
    /// The refusal of the build in progress on this thread, once one stage was refused
    /// (stages deep inside the frontend cannot return it; the build reads it here).
    static REFUSED: Cell<Option<(&'static str, usize, usize)>> = const { Cell::new(None) };
}

/// Fails unless `needed` more bytes fit in what the process can still get.
pub fn check(stage: &'static str, needed: usize) -> Result<(), OutOfMemory> {
    if needed < NEGLIGIBLE {
        return Ok(());
    }
    match headroom() {
        Some(available) if needed > available => Err(OutOfMemory {
            stage,
            needed,
            available,
        }),
        _ => Ok(()),
    }
}

/// [`check`] for code that cannot return the error: records it for the build on this
/// thread ([`take_refusal`]) and answers whether the caller must stop.
pub fn exceeded(stage: &'static str, needed: usize) -> bool {
    match check(stage, needed) {
        Ok(()) => false,
        Err(e) => {
            REFUSED.with(|r| r.set(Some((e.stage, e.needed, e.available))));
            true
        }
    }
}

/// The refusal recorded by [`exceeded`] on this thread since the last call, if any.
pub fn take_refusal() -> Option<OutOfMemory> {
    REFUSED
        .with(Cell::take)
        .map(|(stage, needed, available)| OutOfMemory {
            stage,
            needed,
            available,
        })
}

/// The bytes this process can still allocate, as far as its limits can be read (`None`
/// where none can).
pub fn headroom() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mut room: Option<usize> = None;
    let mut bound = |r: Option<usize>| {
        if let Some(r) = r {
            room = Some(room.map_or(r, |x| x.min(r)));
        }
    };
    bound(
        limit(&limits, "Max address space")
            .zip(kib(&status, "VmSize:"))
            .map(|(l, used)| l.saturating_sub(used)),
    );
    bound(
        limit(&limits, "Max data size")
            .zip(kib(&status, "VmData:"))
            .map(|(l, used)| l.saturating_sub(used)),
    );
    bound(kib(&meminfo, "MemAvailable:"));
    bound(cgroup_room());
    room
}

/// Hands the memory freed so far back to the system (glibc keeps freed pages of its heap
/// resident; elsewhere this does nothing). A large build calls it once its typed tree is
/// dropped: Cranelift compiles on other threads, whose allocations come from other arenas,
/// so without it the tree's pages would count again on top of Cranelift's at the peak.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            /// glibc's `malloc_trim(3)`.
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim takes no pointer and may be called at any time; it only
        // releases pages that no allocation uses.
        unsafe { malloc_trim(0) };
    }
}

/// The soft limit in `/proc/self/limits` on the line starting with `name` (`None` when
/// unlimited or unreadable).
fn limit(limits: &str, name: &str) -> Option<usize> {
    let line = limits.lines().find(|l| l.starts_with(name))?;
    let soft = line[name.len()..].split_whitespace().next()?;
    soft.parse().ok()
}

/// A `name: N kB` field of a procfs file, in bytes.
fn kib(text: &str, name: &str) -> Option<usize> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let n: usize = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    n.checked_mul(1024)
}

/// The room left in this process's cgroup v2 memory limit.
fn cgroup_room() -> Option<usize> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    let max: usize = read("memory.max")?.trim().parse().ok()?;
    let current: usize = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_sizes_are_read_from_procfs_text() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max data size             unlimited            unlimited            bytes     \n\
                      Max address space         734003200            unlimited            bytes     \n";
        assert_eq!(limit(limits, "Max address space"), Some(734_003_200));
        assert_eq!(limit(limits, "Max data size"), None);
        let status = "Name:\tx\nVmSize:\t  123456 kB\nVmData:\t 2048 kB\n";
        assert_eq!(kib(status, "VmSize:"), Some(123_456 * 1024));
        assert_eq!(kib(status, "VmData:"), Some(2048 * 1024));
        assert_eq!(kib(status, "VmRSS:"), None);
    }

    #[test]
    fn small_needs_pass_and_impossible_ones_are_refused() {
        assert_eq!(check("parse", 1 << 20), Ok(()));
        // No machine this runs on has 2^62 bytes to give.
        let refused = check("sema", 1 << 62).expect_err("2^62 bytes fit");
        assert_eq!(refused.stage, "sema");
        assert!(refused.available < 1 << 62);
        assert!(!exceeded("parse", 1 << 20));
        assert_eq!(take_refusal(), None);
        assert!(exceeded("preprocess", 1 << 62));
        assert_eq!(take_refusal().map(|r| r.stage), Some("preprocess"));
        assert_eq!(take_refusal(), None);
    }
}
