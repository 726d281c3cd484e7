//! Generated inputs for the stable replay: mutations of the kept corpora, made with a
//! seeded generator so that a failure can be replayed from its seed.
//!
//! libFuzzer does this far better (coverage-guided, on nightly); this only gives every CI
//! run a few seconds of inputs no run has seen, on top of the corpora.

/// A small, fast, seeded generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Words of OpenCL C worth splicing into a program (also `fuzz/opencl.dict`'s entries).
pub const WORDS: &[&str] = &[
    "__kernel",
    "kernel",
    "__global",
    "global",
    "__local",
    "local",
    "__constant",
    "constant",
    "__private",
    "void",
    "int",
    "uint",
    "float",
    "double",
    "half",
    "char",
    "uchar",
    "short",
    "long",
    "ulong",
    "size_t",
    "bool",
    "float4",
    "int4",
    "uint8",
    "double2",
    "char16",
    "struct",
    "union",
    "typedef",
    "enum",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "return",
    "goto",
    "sizeof",
    "vec_step",
    "const",
    "volatile",
    "restrict",
    "inline",
    "static",
    "#define",
    "#undef",
    "#if",
    "#ifdef",
    "#ifndef",
    "#elif",
    "#else",
    "#endif",
    "#include",
    "#pragma",
    "#error",
    "#line",
    "##",
    "#",
    "__VA_ARGS__",
    "defined",
    "OPENCL EXTENSION",
    "cl_khr_fp64",
    "cl_khr_fp16",
    "enable",
    "barrier",
    "CLK_LOCAL_MEM_FENCE",
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_local_size",
    "atomic_add",
    "atomic_cmpxchg",
    "read_imagef",
    "write_imagef",
    "image2d_t",
    "sampler_t",
    "vload4",
    "vstore4",
    "convert_int4_sat",
    "as_float",
    "select",
    "mad",
    "printf",
    "async_work_group_copy",
    "__attribute__((reqd_work_group_size(1,1,1)))",
    ".xyzw",
    ".s0123",
    ".lo",
    ".hi",
    ".even",
    "->",
    "++",
    "--",
    "<<=",
    ">>=",
    "&&",
    "||",
    "?",
    ":",
    "...",
    "0x7fffffff",
    "1e308",
    "0.5f",
    "1.0h",
    "'\\x41'",
    "\"%d\\n\"",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    "=",
    "*",
    "&",
];

/// A mutation of `input`: bytes flipped, inserted or removed, a word of [`WORDS`] spliced
/// in, a span repeated or cut, a piece of `other` spliced in; several at a time.
pub fn mutate(input: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = if out.is_empty() {
            0
        } else {
            rng.below(out.len() + 1)
        };
        match rng.below(7) {
            0 if at < out.len() => out[at] ^= 1 << rng.below(8),
            1 => out.insert(at, rng.next_u64() as u8),
            2 if at < out.len() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
            3 | 4 => {
                let word = WORDS[rng.below(WORDS.len())];
                out.splice(at..at, word.bytes().chain([b' ']));
            }
            5 if at < out.len() => {
                let end = (at + 1 + rng.below(64)).min(out.len());
                let span = out[at..end].to_vec();
                out.splice(at..at, span);
            }
            _ if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + 1 + rng.below(256)).min(other.len());
                out.splice(at..at, other[from..end].iter().copied());
            }
            _ => out.truncate(at),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_seeded() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let first: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(first[0], first[1]);
        let mut rng = Rng::new(3);
        assert_eq!(
            mutate(b"kernel", b"", &mut rng),
            mutate(b"kernel", b"", &mut Rng::new(3))
        );
    }
}
