//! Filling memory with a repeated pattern (`clEnqueueFillBuffer`, `clEnqueueFillImage`).
//!
//! Copying the pattern once per repetition costs a `memcpy` call per element: 512 Ki calls
//! for the 4-byte pattern over 2 MiB that the CTS's math tests fill every output buffer with
//! before each chunk (2 ms a buffer, more than the kernels that follow). Instead the pattern
//! is doubled in place up to a block of whole repetitions, and the rest is copied a block at
//! a time, at memory speed.

/// The largest block copied at once: small enough to stay in the first-level cache while it
/// is the source of every copy, large enough that a call copies a few thousand bytes.
const BLOCK: usize = 4096;

/// Fills `target` with copies of `pattern` back to back, the first at `target[0]`; a last
/// partial copy takes the pattern's first bytes. An empty pattern leaves `target` as it is.
pub fn fill_pattern(target: &mut [u8], pattern: &[u8]) {
    match pattern {
        [] => {}
        [byte] => target.fill(*byte),
        _ => {
            // The block is whole repetitions (at least one), so that every copy of it
            // starts at a repetition's start.
            let block = (BLOCK / pattern.len()).max(1) * pattern.len();
            let head = block.min(target.len());
            let (first, rest) = target.split_at_mut(head);
            double_into(first, pattern);
            let mut chunks = rest.chunks_exact_mut(head.max(1));
            for chunk in &mut chunks {
                chunk.copy_from_slice(first);
            }
            let tail = chunks.into_remainder();
            let n = tail.len();
            tail.copy_from_slice(&first[..n]);
        }
    }
}

/// Writes the pattern at the start of `first` and copies what is written after itself,
/// doubling it, until `first` is full: a few calls for the whole block.
fn double_into(first: &mut [u8], pattern: &[u8]) {
    let n = pattern.len().min(first.len());
    first[..n].copy_from_slice(&pattern[..n]);
    let mut filled = n;
    while filled < first.len() {
        let more = filled.min(first.len() - filled);
        first.copy_within(..more, filled);
        filled += more;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious fill, one copy per repetition, to compare with.
    fn reference(len: usize, pattern: &[u8]) -> Vec<u8> {
        (0..len).map(|i| pattern[i % pattern.len()]).collect()
    }

    #[test]
    fn the_ctss_pattern_fills_two_mebibytes() {
        let pattern = 0xffff_deadu32.to_ne_bytes();
        let mut target = vec![0u8; 2 << 20];
        fill_pattern(&mut target, &pattern);
        let words: Vec<u32> = target
            .chunks_exact(4)
            .map(|w| u32::from_ne_bytes(w.try_into().unwrap()))
            .collect();
        assert_eq!(words.len(), 512 * 1024);
        assert!(words.iter().all(|&w| w == 0xffff_dead));
    }

    #[test]
    fn every_pattern_size_and_length_matches_one_copy_per_repetition() {
        for size in [1, 2, 3, 4, 8, 12, 16, 32, 64, 128, 4096, 5000] {
            let pattern: Vec<u8> = (0..size).map(|i| (i * 37 + 11) as u8).collect();
            for len in [
                0,
                1,
                size,
                size * 3,
                4095,
                4096,
                4097,
                3 * 4096 + size,
                70_001,
            ] {
                let mut target = vec![0xa5u8; len];
                fill_pattern(&mut target, &pattern);
                assert_eq!(
                    target,
                    reference(len, &pattern),
                    "pattern {size}, length {len}"
                );
            }
        }
    }

    #[test]
    fn an_empty_pattern_changes_nothing() {
        let mut target = vec![7u8; 10];
        fill_pattern(&mut target, &[]);
        assert_eq!(target, vec![7u8; 10]);
    }

    #[test]
    fn only_the_target_is_written() {
        let mut memory = vec![0u8; 9000];
        fill_pattern(&mut memory[100..8100], &[1, 2, 3, 4]);
        assert!(memory[..100].iter().all(|&b| b == 0));
        assert!(memory[8100..].iter().all(|&b| b == 0));
        assert_eq!(&memory[100..108], &[1, 2, 3, 4, 1, 2, 3, 4]);
        assert_eq!(&memory[8096..8100], &[1, 2, 3, 4]);
    }
}
