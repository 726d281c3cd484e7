//! clift's program binary format (`CL_PROGRAM_BINARIES`, `clCreateProgramWithBinary`).
//!
//! A binary holds the program as preprocessed OpenCL C text plus the options that shape its
//! code, not machine code: clift builds a program in milliseconds, so loading a binary
//! rebuilds it (`clBuildProgram` is required after `clCreateProgramWithBinary` anyway), and
//! the binary stays valid across CPUs with different vector units and across clift versions
//! that keep this format. Preprocessing is done, so the binary needs no include files and
//! no `-D` options.
//!
//! Layout, all integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `CLIFTBIN` |
//! | 4 | format version (1) |
//! | 4 | kind: 1 compiled object, 2 library, 3 executable |
//! | 4 | length of the options |
//! | n | build options (for an executable: those that act after preprocessing) |
//! | 8 | length of the text |
//! | m | preprocessed OpenCL C text, UTF-8 |
//! | 8 | FNV-1a 64 of every byte before it |
//!
//! Anything else (a wrong magic, version or kind, lengths that do not add up, text that is
//! not UTF-8, a checksum mismatch) is not a valid binary: `CL_INVALID_BINARY`.

const MAGIC: &[u8; 8] = b"CLIFTBIN";
const VERSION: u32 = 1;

/// What a binary holds, as `CL_PROGRAM_BINARY_TYPE` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryKind {
    CompiledObject = 1,
    Library = 2,
    Executable = 3,
}

/// A decoded program binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramBinary {
    pub kind: BinaryKind,
    /// The build options to build `text` with (empty for objects and libraries, whose
    /// options come from the `clBuildProgram` or `clLinkProgram` that uses them).
    pub options: Vec<u8>,
    /// The preprocessed program.
    pub text: String,
}

/// Why bytes are not a clift binary (for tests and messages; the API answers
/// `CL_INVALID_BINARY` for all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvalidBinary {
    Magic,
    Version(u32),
    Kind(u32),
    Truncated,
    TrailingBytes,
    NotUtf8,
    Checksum,
}

impl ProgramBinary {
    /// The binary's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(36 + self.options.len() + self.text.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.kind as u32).to_le_bytes());
        out.extend_from_slice(&(self.options.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.options);
        out.extend_from_slice(&(self.text.len() as u64).to_le_bytes());
        out.extend_from_slice(self.text.as_bytes());
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Decodes `bytes`, checking every field.
    pub fn decode(bytes: &[u8]) -> Result<ProgramBinary, InvalidBinary> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(8)? != MAGIC {
            return Err(InvalidBinary::Magic);
        }
        let version = reader.u32()?;
        if version != VERSION {
            return Err(InvalidBinary::Version(version));
        }
        let kind = match reader.u32()? {
            1 => BinaryKind::CompiledObject,
            2 => BinaryKind::Library,
            3 => BinaryKind::Executable,
            other => return Err(InvalidBinary::Kind(other)),
        };
        let options_len = reader.u32()? as usize;
        let options = reader.take(options_len)?.to_vec();
        let text_len = usize::try_from(reader.u64()?).map_err(|_| InvalidBinary::Truncated)?;
        let text = reader.take(text_len)?;
        let text = std::str::from_utf8(text)
            .map_err(|_| InvalidBinary::NotUtf8)?
            .to_owned();
        let checked = reader.at;
        let checksum = reader.u64()?;
        if reader.at != bytes.len() {
            return Err(InvalidBinary::TrailingBytes);
        }
        if fnv1a(&bytes[..checked]) != checksum {
            return Err(InvalidBinary::Checksum);
        }
        Ok(ProgramBinary {
            kind,
            options,
            text,
        })
    }
}

/// Reads fields in order, failing with `Truncated` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], InvalidBinary> {
        let end = self.at.checked_add(n).ok_or(InvalidBinary::Truncated)?;
        let field = self
            .bytes
            .get(self.at..end)
            .ok_or(InvalidBinary::Truncated)?;
        self.at = end;
        Ok(field)
    }

    fn u32(&mut self) -> Result<u32, InvalidBinary> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn u64(&mut self) -> Result<u64, InvalidBinary> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

/// FNV-1a, 64 bits: catches truncation and bit rot, which is all a binary needs (it is not
/// a security boundary: a binary is code the application chose to run).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ProgramBinary {
        ProgramBinary {
            kind: BinaryKind::Executable,
            options: b"-cl-mad-enable".to_vec(),
            text: "kernel void k(global int *a) { a[0] = 1; }\n".into(),
        }
    }

    #[test]
    fn round_trips_every_kind() {
        for kind in [
            BinaryKind::CompiledObject,
            BinaryKind::Library,
            BinaryKind::Executable,
        ] {
            let binary = ProgramBinary { kind, ..sample() };
            assert_eq!(ProgramBinary::decode(&binary.encode()), Ok(binary));
        }
    }

    #[test]
    fn the_layout_is_the_documented_one() {
        let bytes = sample().encode();
        assert_eq!(&bytes[..8], b"CLIFTBIN");
        assert_eq!(bytes[8..12], 1u32.to_le_bytes());
        assert_eq!(bytes[12..16], 3u32.to_le_bytes());
        assert_eq!(bytes[16..20], 14u32.to_le_bytes());
        assert_eq!(&bytes[20..34], b"-cl-mad-enable");
        let text_len = sample().text.len();
        assert_eq!(bytes[34..42], (text_len as u64).to_le_bytes());
        assert_eq!(bytes.len(), 42 + text_len + 8);
        // FNV-1a of the empty input is the offset basis; of "a", the published value.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn every_corruption_is_refused() {
        let good = sample().encode();
        let mut magic = good.clone();
        magic[0] = b'X';
        assert_eq!(ProgramBinary::decode(&magic), Err(InvalidBinary::Magic));
        let mut version = good.clone();
        version[8] = 2;
        assert_eq!(
            ProgramBinary::decode(&version),
            Err(InvalidBinary::Version(2))
        );
        let mut kind = good.clone();
        kind[12] = 9;
        assert_eq!(ProgramBinary::decode(&kind), Err(InvalidBinary::Kind(9)));
        let mut flipped = good.clone();
        flipped[40 + 10] ^= 1;
        assert_eq!(
            ProgramBinary::decode(&flipped),
            Err(InvalidBinary::Checksum)
        );
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            ProgramBinary::decode(&longer),
            Err(InvalidBinary::TrailingBytes)
        );
        // Every truncation, down to nothing.
        for len in 0..good.len() {
            assert_eq!(
                ProgramBinary::decode(&good[..len]),
                Err(InvalidBinary::Truncated),
                "length {len}"
            );
        }
        // A huge text length does not allocate or overflow.
        let mut huge = good.clone();
        huge[34..42].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(ProgramBinary::decode(&huge), Err(InvalidBinary::Truncated));
        // Text that is not UTF-8 (checksum recomputed so that only the text is wrong).
        let mut bad_text = ProgramBinary {
            text: "ab".into(),
            ..sample()
        }
        .encode();
        bad_text[42] = 0xff;
        let end = bad_text.len() - 8;
        let sum = fnv1a(&bad_text[..end]);
        bad_text[end..].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(
            ProgramBinary::decode(&bad_text),
            Err(InvalidBinary::NotUtf8)
        );
    }
}
