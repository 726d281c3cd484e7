//! A program builds and runs however fragmented the process's address space is.
//!
//! A JIT'd module calls between its functions and reads its own data with x64 `rel32`
//! references, which reach ±2 GiB. clift keeps each module's code and data in one
//! reservation; before that, cranelift-jit mapped each function on its own, and the kernel
//! put each mapping in whichever hole fit first. The CTS's `test_basic` on a 256 GiB host
//! (`vector_creation` after `bufferreadwriterect`'s multi-gigabyte buffers) then got a
//! work-group function gigabytes away from its kernel, and `clBuildProgram` answered
//! `CL_OUT_OF_HOST_MEMORY` from a caught panic ("TryFromIntError").
//!
//! The child test below recreates that address space on purpose: every gap of the mmap
//! area filled, then small holes above a 3 GiB mapping, so that a module's small mappings
//! would land above it and its large ones below. It runs in a child process (this test
//! binary run again) with the C library's `mmap` threshold raised, so that `malloc` does
//! not open new holes while the program builds.

#![cfg(target_os = "linux")]

use clift_conformance::kernel_fixture::*;

const CHILD: &str = "CLIFT_TEST_ADDRESS_SPACE_CHILD";

/// Statements of the generated kernel: enough that its code is several pages, so that it
/// does not fit the holes its work-group function fits.
const STATEMENTS: usize = 200;

/// Entries of the program-scope table: a small data object, which the module maps apart
/// from its code.
const TABLE: usize = 61;

/// `table[i]`.
fn table(i: usize) -> u8 {
    (i * 11 + 3) as u8
}

/// A kernel of `STATEMENTS` vector constructions from loads at different offsets, each plus
/// an entry of a constant table; `round` makes each source new to clift's caches of builds.
fn kernel_source(round: u32) -> String {
    let entries: Vec<String> = (0..TABLE).map(|i| table(i).to_string()).collect();
    let mut s = format!(
        "constant uchar table{round}[{TABLE}] = {{ {} }};\n\
         kernel void build(global const uchar *src, global uchar16 *out) {{\n",
        entries.join(", ")
    );
    for k in 0..STATEMENTS {
        s.push_str(&format!(
            "  out[{k}] = (uchar16)(vload4(0, src + {}), vload8(0, src + {}), vload4(0, src + {})) \
             + table{round}[{}];\n",
            k % 7,
            k % 5 + 4,
            k % 3 + 12,
            k % TABLE
        ));
    }
    s.push_str("}\n");
    s
}

/// What `kernel_source` writes, from `src`.
fn expected(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(STATEMENTS * 16);
    for k in 0..STATEMENTS {
        let lanes = src[k % 7..k % 7 + 4]
            .iter()
            .chain(&src[k % 5 + 4..k % 5 + 12])
            .chain(&src[k % 3 + 12..k % 3 + 16]);
        out.extend(lanes.map(|&b| b.wrapping_add(table(k % TABLE))));
    }
    out
}

/// Builds and runs the generated kernel; checks every byte.
fn build_and_check(fx: &Fixture, source: &str) {
    let src: Vec<u8> = (0..32u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(5))
        .collect();
    let kernel = fx.kernel(source, c"build", c"");
    let input = fx.buffer(&src);
    let out = fx.filled(0u8, STATEMENTS * 16);
    kernel.mem(0, &input).mem(1, &out);
    fx.run(&kernel, None, &[1], None);
    assert_same(
        &fx.read::<u8>(&out, STATEMENTS * 16),
        &expected(&src),
        "the constructed vectors",
    );
}

/// The `[start, end)` of every mapping, from `/proc/self/maps`, in address order.
fn mappings() -> Vec<(usize, usize)> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    maps.lines()
        .filter_map(|line| {
            let range = line.split_whitespace().next()?;
            let (start, end) = range.split_once('-')?;
            Some((
                usize::from_str_radix(start, 16).ok()?,
                usize::from_str_radix(end, 16).ok()?,
            ))
        })
        .collect()
}

/// Maps `len` inaccessible bytes at `at` (anywhere when `at` is 0); `None` where the
/// system put them elsewhere or refused.
fn reserve(at: usize, len: usize) -> Option<usize> {
    let fixed = if at == 0 {
        0
    } else {
        libc::MAP_FIXED_NOREPLACE
    };
    // SAFETY: an anonymous inaccessible mapping; with MAP_FIXED_NOREPLACE it never replaces
    // an existing one.
    let p = unsafe {
        libc::mmap(
            at as *mut libc::c_void,
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | fixed,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    if at != 0 && p as usize != at {
        // SAFETY: the mapping just made, not used by anything.
        unsafe { libc::munmap(p, len) };
        return None;
    }
    Some(p as usize)
}

#[test]
fn a_program_builds_and_runs_in_a_fragmented_address_space() {
    child(
        "child_in_a_fragmented_address_space",
        &[
            (CHILD, "1"),
            ("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=33554432"),
            ("CLIFT_BUILD_CACHE", "0"),
        ],
    );
}

#[test]
#[ignore = "the child of the test above: it fragments the process's address space"]
fn child_in_a_fragmented_address_space() {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "run by a_program_builds_and_runs_in_a_fragmented_address_space"
    );
    let fx = Fixture::new();
    // Everything a build and a launch start once (threads, their heaps, tables).
    build_and_check(&fx, &kernel_source(1));

    // Fill every gap between the mappings of the mmap area.
    let maps = mappings();
    let floor = maps
        .iter()
        .map(|m| m.0)
        .filter(|&a| a >= 0x7000_0000_0000)
        .min()
        .expect("an mmap area");
    let mut filled = 0;
    for pair in maps.windows(2) {
        let (low, high) = (pair[0].1, pair[1].0);
        if low >= floor && high > low && reserve(low, high - low).is_some() {
            filled += 1;
        }
    }
    // Holes of two pages, one page apart, then 3 GiB below them.
    let page = 4096;
    let holes: Vec<usize> = (0..512)
        .map(|_| {
            reserve(0, page).expect("a separator page");
            reserve(0, 2 * page).expect("a hole")
        })
        .collect();
    let wall = reserve(0, 3 << 30).expect("3 GiB of address space");
    for &hole in &holes {
        // SAFETY: a mapping made above, used by nothing.
        unsafe { libc::munmap(hole as *mut libc::c_void, 2 * page) };
    }
    assert!(
        holes.iter().all(|&h| h > wall),
        "the holes lie above the 3 GiB ({filled} gaps filled)"
    );

    build_and_check(&fx, &kernel_source(2));
}
