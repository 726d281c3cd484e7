//! A kernel's argument block, packed as each argument is set.
//!
//! Everything the compiled code reads from the block is known at `clSetKernelArg` time: the
//! bytes of a by-value argument, a sampler's bits, where each `__local` argument starts, and
//! the address of a buffer's storage or of an image's descriptor (neither moves while the
//! object lives). So `clSetKernelArg` writes its value into the block, and a launch only
//! copies the block and takes a strong reference to each memory object, with no allocation
//! for a block of up to [`INLINE`] bytes and up to [`HELD_INLINE`] objects.

use std::sync::{Arc, Weak};

use clift_compiler::kernel::MAX_ALIGN;

use super::{KernelCode, StoredArg, alive, local_total};
use crate::error::ClResult;
use crate::memory::Mem;
use crate::object::ClObject;

/// The argument block size kept inside a launch (larger blocks are allocated).
pub const INLINE: usize = 128;

/// The memory objects a launch holds without allocating.
pub const HELD_INLINE: usize = 4;

/// An argument block: inline up to [`INLINE`] bytes, 16-byte aligned as an allocated one is.
#[derive(Clone)]
pub struct Block {
    inline: Inline,
    heap: Vec<u8>,
    len: usize,
}

#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Inline([u8; INLINE]);

impl Block {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Block {
        Block {
            inline: Inline([0; INLINE]),
            heap: if len > INLINE {
                vec![0; len]
            } else {
                Vec::new()
            },
            len,
        }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        if self.len > INLINE {
            &mut self.heap
        } else {
            &mut self.inline.0[..self.len]
        }
    }

    pub fn as_ptr(&self) -> *const u8 {
        if self.len > INLINE {
            self.heap.as_ptr()
        } else {
            self.inline.0.as_ptr()
        }
    }
}

/// The memory objects a launch keeps alive until its command has run.
#[derive(Default)]
pub struct Held {
    first: [Option<Arc<Mem>>; HELD_INLINE],
    rest: Vec<Arc<Mem>>,
}

impl Held {
    /// Whether it holds no object.
    pub fn is_empty(&self) -> bool {
        self.first[0].is_none()
    }

    /// Whether every object is still the application's (see `alive`): a launch that
    /// reuses a snapshot holding one the application has released is refused.
    pub fn all_alive(&self) -> bool {
        let first = self.first.iter().flatten();
        first
            .chain(&self.rest)
            .all(|mem| mem.header().api_refs() > 0)
    }

    fn push(&mut self, mem: Arc<Mem>) {
        match self.first.iter_mut().find(|slot| slot.is_none()) {
            Some(slot) => *slot = Some(mem),
            None => self.rest.push(mem),
        }
    }
}

/// The arguments of a kernel: the values as set, and the block they make.
pub struct Args {
    values: Vec<Option<StoredArg>>,
    /// Arguments not set yet.
    unset: usize,
    block: Block,
    /// Every memory object argument in parameter order (a launch upgrades them).
    objects: Vec<Weak<Mem>>,
    /// The local memory a launch lays out: the static locals, then each `__local` argument
    /// at a multiple of [`MAX_ALIGN`]; `None` where that does not fit a `usize`.
    local_size: Option<usize>,
    /// What `CL_KERNEL_LOCAL_MEM_SIZE` reports: the static locals plus each `__local`
    /// argument rounded to 16 bytes, saturating at `usize::MAX` (kept up to date by
    /// [`Args::set`], so that a launch does not walk the arguments).
    local_need: usize,
}

impl Args {
    pub fn new(code: &KernelCode) -> Args {
        let local_size = code.static_local_size.checked_next_multiple_of(MAX_ALIGN);
        Args {
            values: code.params.iter().map(|_| None).collect(),
            unset: code.params.len(),
            block: Block::zeroed(code.args_size.max(1)),
            objects: Vec::new(),
            local_size,
            local_need: code.static_local_size,
        }
    }

    pub fn values(&self) -> &[Option<StoredArg>] {
        &self.values
    }

    /// Stores argument `index` (in range, its kind checked against its parameter by
    /// `StoredArg`'s constructor) and writes it into the block.
    pub fn set(&mut self, code: &KernelCode, index: usize, value: StoredArg) {
        let param = &code.params[index];
        let slot = &mut self.block.bytes_mut()[param.offset..];
        match &value {
            StoredArg::Buffer(mem) => {
                let address = mem
                    .as_ref()
                    .and_then(Weak::upgrade)
                    .map_or(0, |m| m.base() as u64);
                slot[..8].copy_from_slice(&address.to_ne_bytes());
            }
            StoredArg::Image(mem) => {
                // The descriptor lives in the image object, which a launch holds.
                let address = mem.upgrade().and_then(|m| {
                    (m.image_info()).map(|image| &image.descriptor as *const _ as u64)
                });
                slot[..8].copy_from_slice(&address.unwrap_or(0).to_ne_bytes());
            }
            StoredArg::Bytes(bytes) => {
                let n = bytes.len().min(slot.len());
                slot[..n].copy_from_slice(&bytes[..n]);
            }
            StoredArg::Sampler(bits) => slot[..4].copy_from_slice(&bits.to_ne_bytes()),
            StoredArg::Local(_) => {}
        }
        let was_local = matches!(self.values[index], Some(StoredArg::Local(_)));
        let is_local = matches!(value, StoredArg::Local(_));
        if self.values[index].is_none() {
            self.unset -= 1;
        }
        self.values[index] = Some(value);
        if was_local || is_local {
            self.lay_out_locals(code);
        }
        self.objects = (self.values.iter().flatten())
            .filter_map(|v| match v {
                StoredArg::Buffer(Some(mem)) | StoredArg::Image(mem) => Some(Weak::clone(mem)),
                _ => None,
            })
            .collect();
    }

    /// Places each set `__local` argument after the static locals and the arguments before
    /// it, writing its offset into the block.
    fn lay_out_locals(&mut self, code: &KernelCode) {
        let mut total = code.static_local_size.checked_next_multiple_of(MAX_ALIGN);
        for (param, value) in code.params.iter().zip(&self.values) {
            let Some(StoredArg::Local(size)) = value else {
                continue;
            };
            let offset = total.unwrap_or(0) as u64;
            self.block.bytes_mut()[param.offset..param.offset + 8]
                .copy_from_slice(&offset.to_ne_bytes());
            total = total.and_then(|t| local_total(t, [*size], MAX_ALIGN));
        }
        self.local_size = total;
        let locals = self.values.iter().filter_map(|a| match a {
            Some(StoredArg::Local(n)) => Some(*n),
            _ => None,
        });
        self.local_need = local_total(code.static_local_size, locals, 16).unwrap_or(usize::MAX);
    }

    /// Whether a memory object is among the arguments.
    pub fn holds_objects(&self) -> bool {
        !self.objects.is_empty()
    }

    /// Whether every argument has been set.
    pub fn complete(&self) -> bool {
        self.unset == 0
    }

    pub fn local_size(&self) -> Option<usize> {
        self.local_size
    }

    /// The kernel's local memory need as `CL_KERNEL_LOCAL_MEM_SIZE` reports it.
    pub fn local_need(&self) -> usize {
        self.local_need
    }

    /// The block a launch copies (see [`Block::clone_to`]).
    pub fn block(&self) -> &Block {
        &self.block
    }

    /// The memory objects a launch holds, each still alive (`CL_INVALID_KERNEL_ARGS` for
    /// one that is not).
    pub fn hold(&self) -> ClResult<Held> {
        let mut held = Held::default();
        for mem in &self.objects {
            held.push(alive(mem)?);
        }
        Ok(held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_blocks_are_inline_and_aligned() {
        let mut small = Block::zeroed(INLINE);
        small.bytes_mut()[INLINE - 1] = 7;
        assert_eq!(small.as_ptr() as usize % 16, 0);
        assert!(small.heap.is_empty());
        let copy = small.clone();
        // SAFETY: the block holds INLINE bytes.
        assert_eq!(unsafe { *copy.as_ptr().add(INLINE - 1) }, 7);
        let mut large = Block::zeroed(INLINE + 1);
        large.bytes_mut()[INLINE] = 9;
        assert_eq!(large.heap.len(), INLINE + 1);
        // SAFETY: the block holds INLINE + 1 bytes.
        assert_eq!(unsafe { *large.clone().as_ptr().add(INLINE) }, 9);
    }
}
