//! Safe mode (`CLIFT_SAFE=1` or `-cl-clift-safe`): the launch's table of memory objects
//! that bounds-checked kernels read, and the two functions they call.
//!
//! The runtime fills a [`SafeLaunch`] for each launch of a kernel built in safe mode: one
//! [`SafeObject`] per kernel parameter (a buffer's address and size, a `__local` argument's
//! offset in the group's local memory and size, nothing for by-value parameters). The
//! generated code reads the sizes of its pointer parameters from it, so that every access
//! through a pointer whose object the compiler can follow is checked inline against that
//! object; where it cannot follow the pointer (one loaded from memory, a helper function's
//! parameter) it calls [`clift_safe_object`] to find the object that holds the address.
//! On a violation it records the launch's first one in [`Violation`] (claiming `site` with
//! a compare-and-swap from 0, then writing the other fields and the site) and executes a
//! trap, which the runtime's fault handler turns into the event's error.

use std::sync::atomic::{AtomicU64, Ordering};

/// What kind of memory an object (or a pointer) is in: `clift_safe_object`'s `space`
/// argument and [`SafeObject::space`].
pub mod space {
    /// Not a pointer parameter (by-value, image, sampler).
    pub const NONE: u64 = 0;
    pub const GLOBAL: u64 = 1;
    pub const CONSTANT: u64 = 2;
    /// A `__local` argument: [`super::SafeObject::base`] is its offset in the group's local
    /// memory.
    pub const LOCAL: u64 = 3;
    pub const PRIVATE: u64 = 4;
}

/// The lowest address any object can have: accesses below it are through a null pointer.
pub const NULL_PAGE: u64 = 4096;

/// One memory object of a launch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SafeObject {
    /// Its address (for `__local` arguments: its offset in local memory); 0 for a NULL
    /// buffer argument.
    pub base: u64,
    /// Its size in bytes (0 for a NULL buffer argument: every access through it fails).
    pub size: u64,
    /// [`space`].
    pub space: u64,
}

/// The first bounds violation of a launch.
#[repr(C)]
#[derive(Debug, Default)]
pub struct Violation {
    /// The check's site (1-based index into the kernel's site table; bit 63: a write); 0
    /// while there is none.
    pub site: AtomicU64,
    /// The address accessed.
    pub address: AtomicU64,
    /// The bytes accessed.
    pub size: AtomicU64,
    /// The object the access was checked against: `base..end` (equal when no object holds
    /// the address).
    pub base: AtomicU64,
    pub end: AtomicU64,
}

/// Bit 63 of [`Violation::site`]: the access was a write.
pub const WRITE_BIT: u64 = 1 << 63;

/// The table of one launch (the work-group context points at it).
#[repr(C)]
#[derive(Debug)]
pub struct SafeLaunch {
    pub violation: Violation,
    /// One per kernel parameter, in order.
    pub objects: *const SafeObject,
    pub count: u64,
    /// Bytes of kernel-scope `__local` variables at the start of local memory.
    pub static_local_size: u64,
}

impl SafeLaunch {
    /// Byte offsets of the fields, for the code generator: the violation's site, address,
    /// size, base and end, then the objects.
    pub const OFFSET_SITE: i32 = 0;
    pub const OFFSET_ADDRESS: i32 = 8;
    pub const OFFSET_SIZE: i32 = 16;
    pub const OFFSET_BASE: i32 = 24;
    pub const OFFSET_END: i32 = 32;
    pub const OFFSET_OBJECTS: i32 = 40;
    /// Bytes of one [`SafeObject`].
    pub const OBJECT_SIZE: i32 = 24;
    /// Offset of [`SafeObject::size`] in it.
    pub const OBJECT_SIZE_FIELD: i32 = 8;

    /// A table of `objects` (which must outlive it).
    pub fn new(objects: &[SafeObject], static_local_size: u64) -> SafeLaunch {
        SafeLaunch {
            violation: Violation::default(),
            objects: objects.as_ptr(),
            count: objects.len() as u64,
            static_local_size,
        }
    }

    /// The objects.
    fn objects(&self) -> &[SafeObject] {
        if self.objects.is_null() || self.count == 0 {
            return &[];
        }
        // SAFETY: `new` took them from a slice that outlives the table.
        unsafe { std::slice::from_raw_parts(self.objects, self.count as usize) }
    }

    /// The first violation: (site, address, size, base, end), if any.
    pub fn first_violation(&self) -> Option<(u64, u64, u64, u64, u64)> {
        let v = &self.violation;
        let site = v.site.load(Ordering::Acquire);
        (site != 0).then(|| {
            (
                site,
                v.address.load(Ordering::Relaxed),
                v.size.load(Ordering::Relaxed),
                v.base.load(Ordering::Relaxed),
                v.end.load(Ordering::Relaxed),
            )
        })
    }

    /// The object of `space` that holds `address`: its `(base, end)`, or `(address,
    /// address)` if none does. `local_memory` is the group's local memory; `statics` the
    /// program's `__constant` variables as `(address, size)`.
    pub fn find(
        &self,
        address: u64,
        space: u64,
        local_memory: u64,
        statics: &[(u64, u64)],
    ) -> (u64, u64) {
        let contains = |base: u64, size: u64| address >= base && address - base < size;
        let found = match space {
            space::LOCAL => {
                let kernel_scope = (local_memory, self.static_local_size);
                std::iter::once(kernel_scope)
                    .chain(
                        self.objects()
                            .iter()
                            .filter(|o| o.space == space::LOCAL)
                            .map(|o| (local_memory.wrapping_add(o.base), o.size)),
                    )
                    .find(|&(b, s)| contains(b, s))
            }
            space::GLOBAL | space::CONSTANT => self
                .objects()
                .iter()
                .filter(|o| o.space == space::GLOBAL || o.space == space::CONSTANT)
                .map(|o| (o.base, o.size))
                .chain(statics.iter().copied())
                .find(|&(b, s)| contains(b, s)),
            // Private objects are not in the table: anything but the null page.
            _ => Some((NULL_PAGE, u64::MAX - NULL_PAGE)),
        };
        match found {
            Some((base, size)) => (base, base.saturating_add(size)),
            None => (address, address),
        }
    }
}

/// Finds the object of `space` holding `address` for a pointer the compiler could not
/// follow, and writes its `(base, end)` to `out` ([`SafeLaunch::find`]). `statics` points at
/// the module's list of program-scope variables: a count, then `(address, size)` pairs.
///
/// # Safety
/// `launch` is the launch's table, `statics` the module's list, `out` two writable words.
pub unsafe extern "C" fn clift_safe_object(
    launch: *const SafeLaunch,
    local_memory: u64,
    statics: *const u64,
    address: u64,
    space: u64,
    out: *mut u64,
) {
    // SAFETY: the caller's contract.
    let (launch, statics) = unsafe {
        let count = if statics.is_null() { 0 } else { *statics } as usize;
        let pairs = if count == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(statics.add(1).cast::<(u64, u64)>(), count)
        };
        (&*launch, pairs)
    };
    let (base, end) = launch.find(address, space, local_memory, statics);
    // SAFETY: the caller's contract.
    unsafe {
        *out = base;
        *out.add(1) = end;
    }
}

/// The symbols generated code calls.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![("clift_safe_object", clift_safe_object as *const u8)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_offsets_match_the_constants() {
        let v = |offset: usize| (std::mem::offset_of!(SafeLaunch, violation) + offset) as i32;
        assert_eq!(
            v(std::mem::offset_of!(Violation, site)),
            SafeLaunch::OFFSET_SITE
        );
        assert_eq!(
            v(std::mem::offset_of!(Violation, address)),
            SafeLaunch::OFFSET_ADDRESS
        );
        assert_eq!(
            v(std::mem::offset_of!(Violation, size)),
            SafeLaunch::OFFSET_SIZE
        );
        assert_eq!(
            v(std::mem::offset_of!(Violation, base)),
            SafeLaunch::OFFSET_BASE
        );
        assert_eq!(
            v(std::mem::offset_of!(Violation, end)),
            SafeLaunch::OFFSET_END
        );
        assert_eq!(
            std::mem::offset_of!(SafeLaunch, objects) as i32,
            SafeLaunch::OFFSET_OBJECTS
        );
        assert_eq!(
            std::mem::size_of::<SafeObject>() as i32,
            SafeLaunch::OBJECT_SIZE
        );
        assert_eq!(
            std::mem::offset_of!(SafeObject, size) as i32,
            SafeLaunch::OBJECT_SIZE_FIELD
        );
    }

    #[test]
    fn an_address_is_found_in_its_object_of_its_space_only() {
        let objects = [
            SafeObject {
                base: 0x10000,
                size: 64,
                space: space::GLOBAL,
            },
            SafeObject {
                base: 128,
                size: 32,
                space: space::LOCAL,
            },
            SafeObject::default(),
        ];
        let launch = SafeLaunch::new(&objects, 16);
        let statics = [(0x20000, 8)];
        let local = 0x5000;
        assert_eq!(
            launch.find(0x10000 + 63, space::GLOBAL, local, &statics),
            (0x10000, 0x10040)
        );
        // One past the end belongs to no object.
        assert_eq!(
            launch.find(0x10040, space::GLOBAL, local, &statics),
            (0x10040, 0x10040)
        );
        assert_eq!(
            launch.find(0x20004, space::CONSTANT, local, &statics),
            (0x20000, 0x20008)
        );
        // Local objects are offsets of the group's local memory; kernel-scope variables
        // come first.
        assert_eq!(
            launch.find(0x5000 + 130, space::LOCAL, local, &statics),
            (0x5080, 0x50a0)
        );
        assert_eq!(
            launch.find(0x5004, space::LOCAL, local, &statics),
            (0x5000, 0x5010)
        );
        // A global address is no local object.
        assert_eq!(
            launch.find(0x10000, space::LOCAL, local, &statics),
            (0x10000, 0x10000)
        );
        assert_eq!(
            launch.find(0x7fff_0000, space::PRIVATE, local, &statics),
            (NULL_PAGE, u64::MAX)
        );
    }

    #[test]
    fn a_recorded_violation_is_read_back_once_its_site_is_written() {
        let launch = SafeLaunch::new(&[], 0);
        assert_eq!(launch.first_violation(), None);
        let v = &launch.violation;
        // What the generated code does: claim, fields, site.
        assert!(
            v.site
                .compare_exchange(0, u64::MAX, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        );
        v.address.store(0x1004, Ordering::Relaxed);
        v.size.store(4, Ordering::Relaxed);
        v.base.store(0x1000, Ordering::Relaxed);
        v.end.store(0x1004, Ordering::Relaxed);
        v.site.store(3 | WRITE_BIT, Ordering::Release);
        assert_eq!(
            launch.first_violation(),
            Some((3 | WRITE_BIT, 0x1004, 4, 0x1000, 0x1004))
        );
    }

    #[test]
    fn the_object_lookup_writes_base_and_end() {
        let objects = [SafeObject {
            base: 0x8000,
            size: 16,
            space: space::CONSTANT,
        }];
        let launch = SafeLaunch::new(&objects, 0);
        let statics = [1u64, 0x9000, 4];
        let mut out = [0u64; 2];
        // SAFETY: live table, list and output.
        unsafe {
            clift_safe_object(
                &launch,
                0,
                statics.as_ptr(),
                0x9002,
                space::CONSTANT,
                out.as_mut_ptr(),
            );
        }
        assert_eq!(out, [0x9000, 0x9004]);
        // SAFETY: as above.
        unsafe {
            clift_safe_object(
                &launch,
                0,
                statics.as_ptr(),
                0x800f,
                space::GLOBAL,
                out.as_mut_ptr(),
            );
        }
        assert_eq!(out, [0x8000, 0x8010]);
    }
}
