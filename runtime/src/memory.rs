//! Memory objects: buffers, sub-buffers and images over host memory.
//!
//! A CPU device shares the host's memory, so a buffer's storage is simply an aligned host
//! allocation, or the application's own pointer with `CL_MEM_USE_HOST_PTR` (zero copy).
//! Sub-buffers share their parent's storage at an offset. Maps return pointers into the
//! storage itself.

use std::alloc::Layout;
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::Arc;

use khronos_headers::*;
use parking_lot::Mutex;

use crate::context::Context;
use crate::device::limits::MIN_DATA_TYPE_ALIGN_BYTES;
use crate::error::{ClResult, fail};
use crate::image::{Format, ImageGeometry, ImageInfo};
use crate::object::{ClObject, Header, ObjectKind};

#[cfg(target_os = "linux")]
pub mod fill;
mod guarded;

/// The bytes behind a buffer.
pub struct Storage {
    ptr: NonNull<u8>,
    len: usize,
    owner: Owner,
}

/// Who frees a buffer's bytes.
enum Owner {
    /// The application (`CL_MEM_USE_HOST_PTR`).
    Application,
    /// The heap, with this layout.
    Heap(Layout),
    /// A mapping of its own with a guard page after the data.
    #[cfg(target_os = "linux")]
    Guarded(#[allow(dead_code, reason = "held for its Drop, which unmaps")] guarded::Guarded),
}

// SAFETY: the storage is plain memory; OpenCL's memory model makes concurrent access to the
// same bytes the application's responsibility (commands are ordered by events).
unsafe impl Send for Storage {}
// SAFETY: as above.
unsafe impl Sync for Storage {}

impl Storage {
    /// Zeroed memory aligned to `CL_DEVICE_MEM_BASE_ADDR_ALIGN` (the size of `long16`),
    /// with a guard page after it where the platform allows (see `guarded`).
    pub fn allocate(len: usize) -> ClResult<Storage> {
        Storage::allocate_for(len, false)
    }

    /// As [`Storage::allocate`], for a caller that writes every byte at once
    /// (`CL_MEM_COPY_HOST_PTR`): the pages are made present before the copy, not one fault
    /// at a time during it.
    pub fn allocate_to_fill(len: usize) -> ClResult<Storage> {
        Storage::allocate_for(len, true)
    }

    fn allocate_for(len: usize, populate: bool) -> ClResult<Storage> {
        #[cfg(target_os = "linux")]
        if let Some((guard, ptr)) =
            guarded::Guarded::allocate(len, MIN_DATA_TYPE_ALIGN_BYTES as usize, populate)
        {
            return Ok(Storage {
                ptr,
                len,
                owner: Owner::Guarded(guard),
            });
        }
        let layout = Layout::from_size_align(len.max(1), MIN_DATA_TYPE_ALIGN_BYTES as usize)
            .or(fail(CL_INVALID_BUFFER_SIZE))?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(ptr) else {
            // "CL_MEM_OBJECT_ALLOCATION_FAILURE if there is a failure to allocate memory".
            return fail(CL_MEM_OBJECT_ALLOCATION_FAILURE);
        };
        Ok(Storage {
            ptr,
            len,
            owner: Owner::Heap(layout),
        })
    }

    /// The application's memory, used in place (`CL_MEM_USE_HOST_PTR`).
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes for as long as the buffer
    /// exists, as the spec requires of the application.
    pub unsafe fn borrow(ptr: NonNull<u8>, len: usize) -> Storage {
        Storage {
            ptr,
            len,
            owner: Owner::Application,
        }
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        // A guarded mapping is unmapped by its own `Drop`.
        if let Owner::Heap(layout) = self.owner {
            // SAFETY: allocated in `allocate` with exactly this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

/// Where an image's bytes live.
pub enum ImageStorage {
    /// Its own allocation, or the application's memory with `CL_MEM_USE_HOST_PTR`.
    Own(Storage),
    /// A buffer's (`CL_MEM_OBJECT_IMAGE1D_BUFFER`), which the image keeps alive.
    Buffer(Arc<Mem>),
}

/// A `clSetMemObjectDestructorCallback` callback, wrapped by the C layer (which knows the
/// object's handle and the application's data).
pub type DestructorCallback = Box<dyn FnOnce() + Send>;

/// A live mapping: the pointer handed out and how many maps returned it.
struct Mapping {
    ptr: *mut u8,
    count: u32,
}

// SAFETY: the pointer is only compared, never dereferenced through this record.
unsafe impl Send for Mapping {}

#[repr(C)]
pub struct Mem {
    header: Header,
    context: Arc<Context>,
    flags: cl_mem_flags,
    size: usize,
    /// Where this object's bytes start in `storage`.
    offset: usize,
    storage: ManuallyDrop<Arc<Storage>>,
    parent: Option<Arc<Mem>>,
    host_ptr: *mut c_void,
    destructors: Mutex<Vec<DestructorCallback>>,
    mappings: Mutex<Vec<Mapping>>,
    /// Format, geometry and kernel descriptor of an image; `None` for buffers.
    image: Option<Box<ImageInfo>>,
}

// SAFETY: `host_ptr` is only reported back (`CL_MEM_HOST_PTR`); the storage is Send + Sync.
unsafe impl Send for Mem {}
// SAFETY: as above; mutable state is behind mutexes.
unsafe impl Sync for Mem {}

// SAFETY: `Mem` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Mem {
    const KIND: ObjectKind = ObjectKind::Mem;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Mem {
    /// A buffer over `storage` (flags and sizes already validated by the caller).
    pub fn buffer(
        context: Arc<Context>,
        flags: cl_mem_flags,
        storage: Storage,
        host_ptr: *mut c_void,
    ) -> Arc<Mem> {
        Arc::new(Mem {
            header: Header::new(ObjectKind::Mem),
            context,
            flags,
            size: storage.len(),
            offset: 0,
            storage: ManuallyDrop::new(Arc::new(storage)),
            parent: None,
            host_ptr,
            destructors: Mutex::new(Vec::new()),
            mappings: Mutex::new(Vec::new()),
            image: None,
        })
    }

    /// A sub-buffer of `parent` over `origin..origin + size` (validated by the caller).
    pub fn sub_buffer(
        parent: &Arc<Mem>,
        flags: cl_mem_flags,
        origin: usize,
        size: usize,
    ) -> Arc<Mem> {
        let host_ptr = if parent.host_ptr.is_null() {
            std::ptr::null_mut()
        } else {
            // "CL_MEM_HOST_PTR ... if memobj is a sub-buffer object ... host_ptr + origin".
            parent.host_ptr.wrapping_byte_add(origin)
        };
        Arc::new(Mem {
            header: Header::new(ObjectKind::Mem),
            context: Arc::clone(&parent.context),
            flags,
            size,
            offset: parent.offset + origin,
            storage: ManuallyDrop::new(Arc::clone(&parent.storage)),
            parent: Some(Arc::clone(parent)),
            host_ptr,
            destructors: Mutex::new(Vec::new()),
            mappings: Mutex::new(Vec::new()),
            image: None,
        })
    }

    /// An image over `storage`, or (an image from a buffer, `CL_MEM_OBJECT_IMAGE1D_BUFFER`)
    /// over `buffer`'s bytes (format, geometry and flags validated by the caller).
    pub fn image(
        context: Arc<Context>,
        flags: cl_mem_flags,
        storage: ImageStorage,
        host_ptr: *mut c_void,
        format: Format,
        geometry: ImageGeometry,
    ) -> Arc<Mem> {
        let (storage, offset, parent) = match storage {
            ImageStorage::Own(s) => (Arc::new(s), 0, None),
            ImageStorage::Buffer(b) => (Arc::clone(&b.storage), b.offset, Some(b)),
        };
        let data = storage.as_ptr().wrapping_add(offset);
        let descriptor = geometry.descriptor(format, data);
        Arc::new(Mem {
            header: Header::new(ObjectKind::Mem),
            context,
            flags,
            size: geometry.size(),
            offset,
            storage: ManuallyDrop::new(storage),
            parent,
            host_ptr,
            destructors: Mutex::new(Vec::new()),
            mappings: Mutex::new(Vec::new()),
            image: Some(Box::new(ImageInfo {
                format,
                geometry,
                descriptor,
            })),
        })
    }

    /// The image's format and geometry; `None` for a buffer.
    pub fn image_info(&self) -> Option<&ImageInfo> {
        self.image.as_deref()
    }

    pub fn is_image(&self) -> bool {
        self.image.is_some()
    }

    /// `CL_MEM_TYPE`.
    pub fn object_type(&self) -> cl_mem_object_type {
        self.image
            .as_ref()
            .map_or(CL_MEM_OBJECT_BUFFER, |i| i.geometry.image_type)
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.context
    }

    pub fn flags(&self) -> cl_mem_flags {
        self.flags
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn parent(&self) -> Option<&Arc<Mem>> {
        self.parent.as_ref()
    }

    /// The offset within the parent (`CL_MEM_OFFSET`): 0 for a buffer.
    pub fn offset_in_parent(&self) -> usize {
        self.parent.as_ref().map_or(0, |p| self.offset - p.offset)
    }

    pub fn host_ptr(&self) -> *mut c_void {
        self.host_ptr
    }

    /// The address of this object's first byte.
    pub fn base(&self) -> *mut u8 {
        self.storage.as_ptr().wrapping_add(self.offset)
    }

    /// Whether `offset..offset + len` lies inside the object.
    pub fn contains(&self, offset: usize, len: usize) -> bool {
        offset.checked_add(len).is_some_and(|end| end <= self.size)
    }

    /// Whether two objects are views of the same allocation (a buffer and its sub-buffers).
    pub fn shares_storage(&self, other: &Mem) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// Whether two objects' bytes overlap (same storage, intersecting ranges).
    pub fn overlaps(&self, a_offset: usize, other: &Mem, b_offset: usize, len: usize) -> bool {
        if !self.shares_storage(other) {
            return false;
        }
        let a = self.offset + a_offset;
        let b = other.offset + b_offset;
        a < b + len && b < a + len
    }

    /// `CL_MEM_MAP_COUNT`.
    pub fn map_count(&self) -> u32 {
        self.mappings.lock().iter().map(|m| m.count).sum()
    }

    /// Records a map of `ptr` (a pointer into this object).
    pub fn add_mapping(&self, ptr: *mut u8) {
        let mut maps = self.mappings.lock();
        match maps.iter_mut().find(|m| m.ptr == ptr) {
            Some(m) => m.count += 1,
            None => maps.push(Mapping { ptr, count: 1 }),
        }
    }

    /// Ends one map of `ptr`: "CL_INVALID_VALUE if mapped_ptr is not a valid pointer
    /// returned by clEnqueueMapBuffer or clEnqueueMapImage for memobj".
    pub fn remove_mapping(&self, ptr: *mut u8) -> ClResult<()> {
        let mut maps = self.mappings.lock();
        let Some(i) = maps.iter().position(|m| m.ptr == ptr) else {
            return fail(CL_INVALID_VALUE);
        };
        maps[i].count -= 1;
        if maps[i].count == 0 {
            maps.swap_remove(i);
        }
        Ok(())
    }

    /// Whether `ptr` is a live mapping of this object.
    pub fn is_mapped(&self, ptr: *mut u8) -> bool {
        self.mappings.lock().iter().any(|m| m.ptr == ptr)
    }

    /// `clSetMemObjectDestructorCallback`.
    pub fn add_destructor(&self, callback: DestructorCallback) {
        self.destructors.lock().push(callback);
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // "The registered user callback functions are called in the reverse order in which
        // they were registered ... after the memory object's resources are released."
        // SAFETY: the storage reference is dropped once, here, and never used again.
        unsafe { ManuallyDrop::drop(&mut self.storage) };
        for callback in self.destructors.get_mut().drain(..).rev() {
            callback();
        }
    }
}
