//! Buffer storage with a guard page after it (Linux): a kernel that writes a few elements
//! past the end of its buffer faults (and its event fails, see `crate::fault`) instead of
//! corrupting the host's heap.
//!
//! Each allocation is its own mapping: the data pages, then one `PROT_NONE` page. The
//! buffer's end is placed at the guard, rounded up to `CL_DEVICE_MEM_BASE_ADDR_ALIGN` (128
//! bytes), so the base keeps that alignment and an overrun of more than the rounding faults
//! at its first byte past the gap. Memory comes zeroed from the kernel, as `alloc_zeroed`'s
//! would.
//!
//! Each mapping costs two entries of the process's map table (`vm.max_map_count`, 65530 by
//! default), so at most [`MAX_LIVE`] mappings exist at once; beyond that, and wherever
//! `mmap` fails, buffers come from the heap as before.
//!
//! A fresh mapping costs three system calls and a page fault per page at first use, where
//! the heap recycles memory: released mappings are kept (up to [`CACHE_BYTES`]) and handed
//! to the next buffer of the same mapping size, zeroed, as `calloc` would recycle a chunk.

use std::ptr::{NonNull, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

/// The most guard-page mappings alive at once, cached ones included (a quarter of the
/// default map table).
pub const MAX_LIVE: usize = 16384;

/// The most bytes of released mappings kept for reuse, and the largest one kept.
pub const CACHE_BYTES: usize = 64 << 20;
const CACHE_LARGEST: usize = 16 << 20;
const CACHE_ENTRIES: usize = 256;

/// Fresh mappings of at least this many data bytes ask for transparent huge pages
/// (`MADV_HUGEPAGE`; Linux's default mode, `madvise`, gives them only to ranges that ask):
/// a kernel streaming a large buffer through 4 KiB pages misses the TLB every 4 KiB of each
/// array, and in a virtual machine each miss walks two page tables. Vector add over three
/// 256 MiB arrays, one thread, on the 2-core dev VM (pairs of runs): 10.9 / 5.3 / 3.6 GB/s
/// with small pages against 16.8 / 7.6 / 5.4 with huge ones under load, 17.1 / 14.4 / 17.6
/// against 18.4 / 18.3 / 18.2 on a quieter machine.
pub const HUGE_PAGE_WORTH: usize = 4 << 20;

/// `madvise` advice: fault in every page of the range as if written (Linux 5.14).
const MADV_POPULATE_WRITE: libc::c_int = 23;

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Released mappings: (address, length), and their total length.
struct Cache {
    maps: Vec<(usize, usize)>,
    bytes: usize,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    maps: Vec::new(),
    bytes: 0,
});

impl Cache {
    /// A cached mapping of exactly `len` bytes (the most recently released: its pages are
    /// likely still in the caches).
    fn take(&mut self, len: usize) -> Option<NonNull<u8>> {
        let at = self.maps.iter().rposition(|&(_, l)| l == len)?;
        let (map, _) = self.maps.remove(at);
        self.bytes -= len;
        NonNull::new(map as *mut u8)
    }

    /// Keeps a released mapping if there is room; false if the caller must unmap it.
    fn keep(&mut self, map: NonNull<u8>, len: usize) -> bool {
        if len > CACHE_LARGEST || self.bytes + len > CACHE_BYTES || self.maps.len() >= CACHE_ENTRIES
        {
            return false;
        }
        self.maps.push((map.as_ptr() as usize, len));
        self.bytes += len;
        true
    }
}

/// One guarded mapping.
pub struct Guarded {
    /// The mapping's start and length (data pages plus the guard page).
    map: NonNull<u8>,
    map_len: usize,
}

fn page_size() -> usize {
    // SAFETY: `sysconf` has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(4096)
}

impl Guarded {
    /// `len` zeroed bytes aligned to `align` (a power of two dividing the page size), ending
    /// within `align` bytes of a guard page; `None` if the mapping cannot be made (the caller
    /// falls back to the heap).
    ///
    /// `populate`: the caller is about to write every byte (`CL_MEM_COPY_HOST_PTR`), so a
    /// fresh mapping's pages are made present now, in one system call
    /// (`MADV_POPULATE_WRITE`), instead of by one page fault each during the copy: a fault
    /// costs microseconds in a virtual machine, a quarter of a million of them per GiB.
    pub fn allocate(len: usize, align: usize, populate: bool) -> Option<(Guarded, NonNull<u8>)> {
        let page = page_size();
        let data = len.max(1).checked_next_multiple_of(align)?;
        let data_pages = data.checked_next_multiple_of(page)?;
        let map_len = data_pages.checked_add(page)?;
        if let Some(map) = CACHE.lock().take(map_len) {
            // SAFETY: the cached mapping has `data_pages` readable and writable bytes before
            // its guard page; the buffer's bytes are zeroed as a fresh mapping's are.
            let base = unsafe {
                let base = map.add(data_pages - data);
                std::ptr::write_bytes(base.as_ptr(), 0, data);
                base
            };
            return Some((Guarded { map, map_len }, base));
        }
        if LIVE.fetch_add(1, Ordering::Relaxed) >= MAX_LIVE {
            LIVE.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        // SAFETY: a fresh anonymous mapping, owned by the returned value; the guard page is
        // inside it.
        let map = unsafe {
            let map = libc::mmap(
                null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if map == libc::MAP_FAILED {
                None
            } else if libc::mprotect(
                map.cast::<u8>().add(data_pages).cast(),
                page,
                libc::PROT_NONE,
            ) != 0
            {
                libc::munmap(map, map_len);
                None
            } else {
                NonNull::new(map.cast::<u8>())
            }
        };
        let Some(map) = map else {
            LIVE.fetch_sub(1, Ordering::Relaxed);
            return None;
        };
        if data_pages >= HUGE_PAGE_WORTH {
            // SAFETY: the data pages of the mapping just made. Where transparent huge pages
            // are off or absent the advice is refused and the pages stay small.
            unsafe { libc::madvise(map.as_ptr().cast(), data_pages, libc::MADV_HUGEPAGE) };
        }
        if populate {
            // SAFETY: the data pages of the mapping just made. A kernel without the advice
            // (before Linux 5.14) refuses it, and the pages fault in as before.
            unsafe { libc::madvise(map.as_ptr().cast(), data_pages, MADV_POPULATE_WRITE) };
        }
        // SAFETY: `data_pages - data` is inside the mapping's data pages.
        let base = unsafe { map.add(data_pages - data) };
        Some((Guarded { map, map_len }, base))
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if CACHE.lock().keep(self.map, self.map_len) {
            return;
        }
        // SAFETY: the mapping made in `allocate`, unmapped once (not cached).
        unsafe { libc::munmap(self.map.as_ptr().cast(), self.map_len) };
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_mapping_comes_back_zeroed_with_its_guard() {
        // A size no other test uses, so the cache hit is this test's own.
        let len = 7 * 4096 + 3 * 128;
        let (g, base) = Guarded::allocate(len, 128, false).expect("mapping");
        // SAFETY: the buffer's bytes are mapped and writable.
        unsafe { std::ptr::write_bytes(base.as_ptr(), 0xAB, len) };
        let map = g.map;
        drop(g);
        let (again, base) = Guarded::allocate(len, 128, false).expect("mapping");
        assert_eq!(again.map, map, "the released mapping is reused");
        // SAFETY: as above.
        let data = unsafe { std::slice::from_raw_parts(base.as_ptr(), len) };
        assert!(data.iter().all(|&b| b == 0));
        let guard = again.map.as_ptr() as usize + again.map_len - page_size();
        assert!(guard - (base.as_ptr() as usize + len) < 128);
    }

    /// How many of the `len` bytes at `base` (page-aligned) are in resident pages.
    fn resident_pages(base: usize, len: usize) -> usize {
        let pages = len.div_ceil(page_size());
        let mut vec = vec![0u8; pages];
        // SAFETY: the range is one mapping of ours; `vec` has a byte per page.
        let r = unsafe { libc::mincore(base as *mut libc::c_void, len, vec.as_mut_ptr()) };
        assert_eq!(r, 0);
        vec.iter().filter(|&&v| v & 1 == 1).count()
    }

    #[test]
    fn a_populated_mapping_is_resident_before_it_is_written() {
        // Sizes no other test uses and above the cache's largest, so both mappings are
        // fresh: untouched, a plain one has no page yet, a populated one has them all.
        let page = page_size();
        let len = (17 << 20) + 5 * page;
        let (plain, _) = Guarded::allocate(len, 128, false).expect("mapping");
        let data = plain.map_len - page;
        assert_eq!(resident_pages(plain.map.as_ptr() as usize, data), 0);
        let (full, base) = Guarded::allocate(len + page, 128, true).expect("mapping");
        let data = full.map_len - page;
        assert_eq!(
            resident_pages(full.map.as_ptr() as usize, data),
            data / page
        );
        // SAFETY: the buffer's bytes are mapped; populated pages read as zero.
        let bytes = unsafe { std::slice::from_raw_parts(base.as_ptr(), len + page) };
        assert!(bytes.iter().all(|&b| b == 0));
    }

    /// The `VmFlags` of the mapping of /proc/self/smaps that holds `addr`.
    fn vm_flags(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&addr);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return flags.trim().to_string();
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    #[test]
    fn large_mappings_ask_for_huge_pages_and_small_ones_do_not() {
        // Sizes no other test uses, above the cache's largest: fresh mappings.
        let (large, base) =
            Guarded::allocate(HUGE_PAGE_WORTH + 3 * 4096, 128, false).expect("mapping");
        let flags = vm_flags(base.as_ptr() as usize);
        assert!(flags.split(' ').any(|f| f == "hg"), "{flags}");
        // The guard page keeps no access.
        let guard = large.map.as_ptr() as usize + large.map_len - page_size();
        assert!(!vm_flags(guard).split(' ').any(|f| f == "rd"));
        let (_small, base) =
            Guarded::allocate(HUGE_PAGE_WORTH - 2 * 4096, 128, false).expect("mapping");
        let flags = vm_flags(base.as_ptr() as usize);
        assert!(!flags.split(' ').any(|f| f == "hg"), "{flags}");
    }

    #[test]
    fn the_end_is_at_the_guard_and_the_base_keeps_its_alignment() {
        let page = page_size();
        for len in [1, 100, 128, 129, 4096, 5000, 3 * 4096 + 7] {
            let (g, base) = Guarded::allocate(len, 128, false).expect("mapping");
            let base = base.as_ptr() as usize;
            assert_eq!(base % 128, 0, "length {len}");
            let guard = g.map.as_ptr() as usize + g.map_len - page;
            let end = base + len;
            assert!(
                end <= guard && guard - end < 128,
                "length {len}: end {end:#x}, guard {guard:#x}"
            );
            // SAFETY: the data bytes are mapped and zeroed.
            let data = unsafe { std::slice::from_raw_parts(base as *const u8, len) };
            assert!(data.iter().all(|&b| b == 0));
        }
    }
}
