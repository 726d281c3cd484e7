//! An in-process cache of successful builds, so that a program built again from the same
//! text with the same options reuses the machine code instead of compiling it again.
//!
//! Applications and test suites often build one small kernel many times: the Khronos CTS's
//! image suites build the same source for every image size they try (tens of thousands of
//! builds per suite), and programs create a fresh program object per frame or per call.
//! PoCL keeps a cache of compiled kernels for the same reason. Sharing is sound because a
//! build is a pure function of its text and options: an [`Executable`] is immutable once
//! built (its program-scope data is read-only, launches get their own memory), and the
//! configuration that also shapes code (`CLIFT_RESUMABLE_BARRIERS` and the like) is read
//! once per process. Failed builds are not kept: their log is cheap to make again, and a
//! failure for lack of memory may not repeat.
//!
//! The cache is small and bounded ([`MAX_ENTRIES`] builds, [`MAX_KEY_BYTES`] of source), so
//! the memory of a process that builds many different programs stays flat; the least
//! recently used build goes first. `CLIFT_BUILD_CACHE=0` turns it off, and the compiler's
//! dump variables (`CLIFT_DUMP_TIR`, `CLIFT_DUMP_CLIF`) do too, since a reused build would
//! print nothing.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::program::Executable;

/// `CLIFT_BUILD_CACHE`: `0` turns the cache off.
pub const BUILD_CACHE_VAR: &str = "CLIFT_BUILD_CACHE";

/// The most builds kept.
const MAX_ENTRIES: usize = 64;

/// The most bytes of source and options kept over all entries.
const MAX_KEY_BYTES: usize = 8 << 20;

/// One cached build: what was built, and the log it wrote.
struct Entry {
    text: Box<str>,
    options: Box<[u8]>,
    log: String,
    executable: Arc<Executable>,
}

impl Entry {
    fn key_bytes(&self) -> usize {
        self.text.len() + self.options.len()
    }
}

/// Builds, most recently used last.
pub struct BuildCache {
    entries: Mutex<Vec<Entry>>,
    max_entries: usize,
    max_key_bytes: usize,
}

impl BuildCache {
    const fn new(max_entries: usize, max_key_bytes: usize) -> BuildCache {
        BuildCache {
            entries: Mutex::new(Vec::new()),
            max_entries,
            max_key_bytes,
        }
    }

    /// The build of `text` with `options`, if one is kept; it becomes the most recent.
    pub fn get(&self, text: &str, options: &[u8]) -> Option<(String, Arc<Executable>)> {
        let mut entries = self.entries.lock();
        let at = entries
            .iter()
            .rposition(|e| &*e.text == text && &*e.options == options)?;
        let entry = entries.remove(at);
        let found = (entry.log.clone(), entry.executable.clone());
        entries.push(entry);
        Some(found)
    }

    /// Keeps a successful build, dropping the least recently used ones beyond the bounds.
    /// A source too large for the whole cache is not kept.
    pub fn insert(&self, text: &str, options: &[u8], log: &str, executable: Arc<Executable>) {
        let entry = Entry {
            text: text.into(),
            options: options.into(),
            log: log.to_owned(),
            executable,
        };
        if entry.key_bytes() > self.max_key_bytes {
            return;
        }
        let mut entries = self.entries.lock();
        entries.retain(|e| !(*e.text == *entry.text && *e.options == *entry.options));
        entries.push(entry);
        let mut total: usize = entries.iter().map(Entry::key_bytes).sum();
        while entries.len() > self.max_entries || total > self.max_key_bytes {
            total -= entries.remove(0).key_bytes();
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().len()
    }
}

/// The process's cache, or `None` where it is turned off.
pub fn global() -> Option<&'static BuildCache> {
    static CACHE: BuildCache = BuildCache::new(MAX_ENTRIES, MAX_KEY_BYTES);
    static ON: OnceLock<bool> = OnceLock::new();
    let on = *ON.get_or_init(|| {
        let var = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
        let off = std::env::var_os(BUILD_CACHE_VAR).is_some_and(|v| v == "0");
        !off && !var("CLIFT_DUMP_TIR") && !var("CLIFT_DUMP_CLIF")
    });
    on.then_some(&CACHE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(marker: &str) -> Arc<Executable> {
        Arc::new(Executable {
            kernels: Vec::new(),
            preprocessed: marker.into(),
            options: Vec::new(),
        })
    }

    #[test]
    fn a_build_is_found_by_its_text_and_options_only() {
        let cache = BuildCache::new(4, 1 << 20);
        let built = executable("a");
        cache.insert("kernel void k() {}", b"-DX=1", "warning\n", built.clone());
        let (log, found) = cache.get("kernel void k() {}", b"-DX=1").unwrap();
        assert_eq!(log, "warning\n");
        assert!(Arc::ptr_eq(&found, &built));
        assert!(cache.get("kernel void k() {}", b"-DX=2").is_none());
        assert!(cache.get("kernel void k(){}", b"-DX=1").is_none());
    }

    #[test]
    fn the_least_recently_used_build_goes_first() {
        let cache = BuildCache::new(2, 1 << 20);
        cache.insert("a", b"", "", executable("a"));
        cache.insert("b", b"", "", executable("b"));
        // Using `a` makes `b` the oldest.
        assert!(cache.get("a", b"").is_some());
        cache.insert("c", b"", "", executable("c"));
        assert_eq!(cache.len(), 2);
        assert!(cache.get("b", b"").is_none());
        assert_eq!(&*cache.get("a", b"").unwrap().1.preprocessed, "a");
        assert_eq!(&*cache.get("c", b"").unwrap().1.preprocessed, "c");
    }

    #[test]
    fn the_key_bytes_are_bounded() {
        let cache = BuildCache::new(16, 10);
        cache.insert("12345", b"", "", executable("1"));
        cache.insert("67890", b"", "", executable("2"));
        assert_eq!(cache.len(), 2);
        // One more byte than fits: the oldest goes.
        cache.insert("x", b"", "", executable("3"));
        assert_eq!(cache.len(), 2);
        assert!(cache.get("12345", b"").is_none());
        // Larger than the whole cache: not kept, nothing dropped.
        cache.insert("0123456789ab", b"", "", executable("4"));
        assert_eq!(cache.len(), 2);
        assert!(cache.get("0123456789ab", b"").is_none());
    }

    #[test]
    fn building_the_same_again_replaces_the_entry() {
        let cache = BuildCache::new(4, 1 << 20);
        cache.insert("a", b"", "old", executable("old"));
        cache.insert("a", b"", "new", executable("new"));
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get("a", b"").unwrap().0, "new");
    }
}
