//! Buffers (OpenCL 1.2 §5.2, §5.4), as an application sees them through the ICD loader:
//! creation flags, sub-buffers, info, destructor callbacks, and every buffer command (read,
//! write, copy, their rectangular forms, fill, map/unmap, migrate), with their data checked
//! byte for byte against a host reference.
//!
//! ocl-icd answers calls on a NULL handle itself; where an invalid handle must reach clift,
//! the tests pass a live handle of another type (a command-queue as a buffer).

use std::alloc::Layout;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Mutex;
use std::time::Duration;

use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

fn device() -> cl_device_id {
    api().device()
}

/// A context over the device and an in-order queue on it, released on drop.
struct Fixture {
    context: cl_context,
    queue: cl_command_queue,
}

impl Fixture {
    fn new() -> Fixture {
        let context = api()
            .create_context(None, &[device()])
            .expect("clCreateContext");
        let queue = api()
            .create_command_queue(context, device(), 0)
            .expect("clCreateCommandQueue");
        Fixture { context, queue }
    }

    /// A buffer without host pointer (zero-filled by the COPY of zeros, so reads of
    /// untouched bytes are defined).
    fn buffer(&self, flags: cl_mem_flags, size: usize) -> cl_mem {
        self.buffer_from(flags, &vec![0; size])
    }

    /// A buffer holding `data` (`CL_MEM_COPY_HOST_PTR`).
    fn buffer_from(&self, flags: cl_mem_flags, data: &[u8]) -> cl_mem {
        api()
            .create_buffer_from(self.context, flags, data)
            .unwrap_or_else(|e| panic!("clCreateBuffer({flags:#x}) failed: {e}"))
    }

    /// A blocking read of `len` bytes at `offset`.
    fn read(&self, mem: cl_mem, offset: usize, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        let status = api().read_buffer(self.queue, mem, offset, &mut out, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS, "clEnqueueReadBuffer");
        out
    }

    /// A blocking write of `data` at `offset`.
    fn write(&self, mem: cl_mem, offset: usize, data: &[u8]) {
        let status = api().write_buffer(self.queue, mem, offset, data, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS, "clEnqueueWriteBuffer");
    }

    fn finish(&self) {
        assert_eq!(api().finish(self.queue), CL_SUCCESS);
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let statuses = [
            api().finish(self.queue),
            api().release_command_queue(self.queue),
            api().release_context(self.context),
        ];
        if !std::thread::panicking() {
            assert_eq!(
                statuses, [CL_SUCCESS; 3],
                "finish / release queue / context"
            );
        }
    }
}

fn release(mem: cl_mem) {
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
}

fn release_event(event: cl_event) {
    assert_eq!(api().release_event(event), CL_SUCCESS);
}

/// Distinct, non-zero-ish bytes: `len` bytes derived from `seed`.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` in bytes (the device reports bits).
fn base_align_bytes() -> usize {
    api().device_uint(device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN) as usize / 8
}

/// The error of a `clCreateBuffer` expected to fail (releasing a buffer it made).
///
/// # Safety
/// As [`Api::create_buffer_raw`].
unsafe fn create_error(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> cl_int {
    // SAFETY: the caller's contract.
    let (mem, status) = unsafe { api().create_buffer_raw(context, flags, size, host_ptr) };
    if !mem.is_null() {
        release(mem);
    }
    assert_eq!(mem.is_null(), status != CL_SUCCESS, "status {status}");
    status
}

/// The error of a `clCreateSubBuffer` expected to fail.
fn sub_error(buffer: cl_mem, flags: cl_mem_flags, origin: usize, size: usize) -> cl_int {
    match api().create_sub_buffer(buffer, flags, origin, size) {
        Ok(sub) => {
            release(sub);
            CL_SUCCESS
        }
        Err(status) => status,
    }
}

fn flags_of(mem: cl_mem) -> cl_mem_flags {
    api().mem_object_scalar(mem, CL_MEM_FLAGS)
}

fn host_ptr_of(mem: cl_mem) -> *mut c_void {
    api().mem_object_scalar(mem, CL_MEM_HOST_PTR)
}

fn map_count(mem: cl_mem) -> cl_uint {
    api().mem_object_scalar(mem, CL_MEM_MAP_COUNT)
}

fn reference_count(mem: cl_mem) -> cl_uint {
    api().mem_object_scalar(mem, CL_MEM_REFERENCE_COUNT)
}

/// Host memory for `CL_MEM_USE_HOST_PTR`: never freed (so it outlives the buffer however
/// the test ends) and only accessed through raw pointers, since the implementation writes
/// to it too. Aligned to 128 bytes like the largest OpenCL type.
struct HostMem {
    ptr: *mut u8,
    len: usize,
}

impl HostMem {
    fn new(data: &[u8]) -> HostMem {
        let layout = Layout::from_size_align(data.len().max(1), 128).unwrap();
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        assert!(!ptr.is_null());
        // SAFETY: `ptr` is a fresh allocation of at least `data.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len()) };
        HostMem {
            ptr,
            len: data.len(),
        }
    }

    fn ptr(&self) -> *mut c_void {
        self.ptr.cast()
    }

    /// A copy of the current contents (call only while no command writes to them).
    fn bytes(&self) -> Vec<u8> {
        // SAFETY: `ptr` holds `len` bytes, never freed; no command is writing.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }.to_vec()
    }

    /// Overwrites `offset..offset + data.len()` (call only while no command uses them).
    fn set(&self, offset: usize, data: &[u8]) {
        assert!(offset + data.len() <= self.len);
        // SAFETY: in bounds (checked); no command is using the bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(offset), data.len()) };
    }

    /// A `CL_MEM_USE_HOST_PTR` buffer over this memory.
    fn buffer(&self, context: cl_context, flags: cl_mem_flags) -> cl_mem {
        // SAFETY: the memory holds `len` bytes and is never freed.
        let (mem, status) = unsafe {
            api().create_buffer_raw(context, flags | CL_MEM_USE_HOST_PTR, self.len, self.ptr())
        };
        assert_eq!(status, CL_SUCCESS, "clCreateBuffer(USE_HOST_PTR)");
        mem
    }
}

// clCreateBuffer: flags

#[test]
fn each_access_flag_is_accepted_and_reported() {
    let fx = Fixture::new();
    for flags in [CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY] {
        let mem = api().create_buffer(fx.context, flags, 64).unwrap();
        assert_eq!(flags_of(mem), flags);
        release(mem);
    }
}

#[test]
fn zero_flags_report_read_write() {
    // "If the value specified for flags is 0, the default is used which is
    // CL_MEM_READ_WRITE."
    let fx = Fixture::new();
    let mem = api().create_buffer(fx.context, 0, 64).unwrap();
    assert_eq!(flags_of(mem), CL_MEM_READ_WRITE);
    release(mem);
}

#[test]
fn each_host_access_flag_is_accepted_and_reported() {
    let fx = Fixture::new();
    for host in [
        CL_MEM_HOST_WRITE_ONLY,
        CL_MEM_HOST_READ_ONLY,
        CL_MEM_HOST_NO_ACCESS,
    ] {
        let mem = api()
            .create_buffer(fx.context, CL_MEM_READ_ONLY | host, 64)
            .unwrap();
        assert_eq!(flags_of(mem), CL_MEM_READ_ONLY | host);
        release(mem);
    }
}

#[test]
fn two_access_flags_together_are_invalid_value() {
    // "CL_MEM_READ_WRITE and CL_MEM_WRITE_ONLY are mutually exclusive"; "CL_MEM_READ_WRITE
    // or CL_MEM_WRITE_ONLY and CL_MEM_READ_ONLY are mutually exclusive". "CL_INVALID_VALUE
    // if values specified in flags are not valid as defined in the table above."
    let fx = Fixture::new();
    for flags in [
        CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY,
        CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY,
    ] {
        // SAFETY: no host pointer.
        let status = unsafe { create_error(fx.context, flags, 64, null_mut()) };
        assert_eq!(status, CL_INVALID_VALUE, "flags {flags:#x}");
    }
}

#[test]
fn two_host_access_flags_together_are_invalid_value() {
    // "CL_MEM_HOST_WRITE_ONLY and CL_MEM_HOST_READ_ONLY are mutually exclusive";
    // "CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_READ_ONLY and CL_MEM_HOST_NO_ACCESS are
    // mutually exclusive."
    let fx = Fixture::new();
    for flags in [
        CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
        CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
        CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
    ] {
        // SAFETY: no host pointer.
        let status = unsafe { create_error(fx.context, flags, 64, null_mut()) };
        assert_eq!(status, CL_INVALID_VALUE, "flags {flags:#x}");
    }
}

#[test]
fn use_host_ptr_with_alloc_or_copy_host_ptr_is_invalid_value() {
    // CL_MEM_ALLOC_HOST_PTR: "CL_MEM_ALLOC_HOST_PTR and CL_MEM_USE_HOST_PTR are mutually
    // exclusive"; CL_MEM_COPY_HOST_PTR: "CL_MEM_COPY_HOST_PTR and CL_MEM_USE_HOST_PTR are
    // mutually exclusive."
    let fx = Fixture::new();
    let host = HostMem::new(&[0; 64]);
    for flags in [
        CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
        CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR,
    ] {
        // SAFETY: the host memory holds 64 bytes and is never freed.
        let status = unsafe { create_error(fx.context, flags, 64, host.ptr()) };
        assert_eq!(status, CL_INVALID_VALUE, "flags {flags:#x}");
    }
}

#[test]
fn undefined_flag_bit_is_invalid_value() {
    let fx = Fixture::new();
    for flags in [1 << 10, 1 << 20, 1 << 63] {
        // SAFETY: no host pointer.
        let status = unsafe { create_error(fx.context, flags, 64, null_mut()) };
        assert_eq!(status, CL_INVALID_VALUE, "flags {flags:#x}");
    }
}

#[test]
fn copy_host_ptr_copies_the_data_at_creation() {
    // CL_MEM_COPY_HOST_PTR: "the application wants the OpenCL implementation to allocate
    // memory for the memory object and copy the data from memory referenced by host_ptr".
    let fx = Fixture::new();
    let data = pattern(256, 7);
    let mut host = data.clone();
    // SAFETY: `host` holds 256 bytes, read during the call only.
    let (mem, status) = unsafe {
        api().create_buffer_raw(
            fx.context,
            CL_MEM_COPY_HOST_PTR,
            host.len(),
            host.as_mut_ptr().cast(),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    host.fill(0xee);
    assert_eq!(fx.read(mem, 0, 256), data);
    // CL_MEM_HOST_PTR: "... Otherwise a NULL value is returned."
    assert!(host_ptr_of(mem).is_null());
    release(mem);
}

#[test]
fn alloc_host_ptr_with_copy_host_ptr_initialises_the_buffer() {
    // "CL_MEM_COPY_HOST_PTR can be used with CL_MEM_ALLOC_HOST_PTR to initialize the
    // contents of the cl_mem object allocated using host-accessible (e.g. PCIe) memory."
    let fx = Fixture::new();
    let data = pattern(200, 3);
    let mem = fx.buffer_from(CL_MEM_ALLOC_HOST_PTR, &data);
    assert_eq!(
        flags_of(mem),
        CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR
    );
    assert_eq!(fx.read(mem, 0, 200), data);
    assert!(host_ptr_of(mem).is_null());
    release(mem);
}

#[test]
fn alloc_host_ptr_buffer_round_trips_data() {
    let fx = Fixture::new();
    let mem = api()
        .create_buffer(fx.context, CL_MEM_ALLOC_HOST_PTR, 512)
        .unwrap();
    let data = pattern(512, 9);
    fx.write(mem, 0, &data);
    assert_eq!(fx.read(mem, 0, 512), data);
    assert!(host_ptr_of(mem).is_null());
    release(mem);
}

#[test]
fn use_host_ptr_buffer_starts_with_the_host_data_and_reports_host_ptr() {
    // CL_MEM_HOST_PTR: "If memobj is created with clCreateBuffer ... and CL_MEM_USE_HOST_PTR
    // is specified in mem_flags, return the host_ptr argument value specified when memobj
    // is created."
    let fx = Fixture::new();
    let data = pattern(300, 1);
    let host = HostMem::new(&data);
    let mem = host.buffer(fx.context, 0);
    assert_eq!(host_ptr_of(mem), host.ptr());
    assert_eq!(flags_of(mem), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR);
    assert_eq!(fx.read(mem, 0, 300), data);
    release(mem);
}

#[test]
fn use_host_ptr_buffer_is_zero_copy_for_writes_through_the_api() {
    // clift's CPU device uses the application's memory as the buffer's storage (the spec
    // allows a cached copy; clift has none), so a completed write is in the host array.
    let fx = Fixture::new();
    let host = HostMem::new(&[0; 128]);
    let mem = host.buffer(fx.context, 0);
    let data = pattern(40, 5);
    fx.write(mem, 24, &data);
    let bytes = host.bytes();
    assert_eq!(&bytes[24..64], &data[..]);
    assert!(bytes[..24].iter().chain(&bytes[64..]).all(|&b| b == 0));
    // And the other way: what the host array holds is what a read returns.
    host.set(100, &[1, 2, 3]);
    assert_eq!(fx.read(mem, 100, 3), [1, 2, 3]);
    release(mem);
}

#[test]
fn map_of_a_use_host_ptr_buffer_returns_host_ptr_plus_offset() {
    // "If the buffer object is created with CL_MEM_USE_HOST_PTR set in mem_flags ... The
    // pointer value returned by clEnqueueMapBuffer will be derived from the host_ptr
    // specified when the buffer object is created", and the host memory is up to date once
    // the map completes.
    let fx = Fixture::new();
    let host = HostMem::new(&[0; 256]);
    let mem = host.buffer(fx.context, 0);
    let data = pattern(64, 11);
    fx.write(mem, 64, &data);
    let (ptr, status) =
        api().enqueue_map_buffer(fx.queue, mem, true, CL_MAP_READ, 64, 64, Waits::NONE, None);
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(ptr, host.ptr().wrapping_byte_add(64));
    assert_eq!(&host.bytes()[64..128], &data[..]);
    assert_eq!(
        api().enqueue_unmap_mem_object(fx.queue, mem, ptr, Waits::NONE, None),
        CL_SUCCESS
    );
    fx.finish();
    release(mem);
}

// clCreateBuffer: size and host_ptr

#[test]
fn zero_size_is_invalid_buffer_size() {
    // "CL_INVALID_BUFFER_SIZE if size is 0."
    let fx = Fixture::new();
    // SAFETY: no host pointer.
    let status = unsafe { create_error(fx.context, 0, 0, null_mut()) };
    assert_eq!(status, CL_INVALID_BUFFER_SIZE);
}

#[test]
fn size_above_max_mem_alloc_size_is_invalid_buffer_size() {
    // "Implementations may return CL_INVALID_BUFFER_SIZE if size is greater than the
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE value ... for all devices in context."
    let fx = Fixture::new();
    let max = api().device_ulong(device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    let size = usize::try_from(max + 1).unwrap();
    // SAFETY: no host pointer.
    let status = unsafe { create_error(fx.context, 0, size, null_mut()) };
    assert_eq!(status, CL_INVALID_BUFFER_SIZE);
    // SAFETY: as above.
    let status = unsafe { create_error(fx.context, 0, usize::MAX, null_mut()) };
    assert_eq!(status, CL_INVALID_BUFFER_SIZE);
}

#[test]
fn use_or_copy_host_ptr_without_host_ptr_is_invalid_host_ptr() {
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags".
    let fx = Fixture::new();
    for flags in [
        CL_MEM_USE_HOST_PTR,
        CL_MEM_COPY_HOST_PTR,
        CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
    ] {
        // SAFETY: no host pointer.
        let status = unsafe { create_error(fx.context, flags, 64, null_mut()) };
        assert_eq!(status, CL_INVALID_HOST_PTR, "flags {flags:#x}");
    }
}

#[test]
fn host_ptr_without_use_or_copy_host_ptr_is_invalid_host_ptr() {
    // "... or if host_ptr is not NULL but CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are
    // not set in flags."
    let fx = Fixture::new();
    let host = HostMem::new(&[0; 64]);
    for flags in [0, CL_MEM_READ_ONLY, CL_MEM_ALLOC_HOST_PTR] {
        // SAFETY: the host memory holds 64 bytes and is never freed.
        let status = unsafe { create_error(fx.context, flags, 64, host.ptr()) };
        assert_eq!(status, CL_INVALID_HOST_PTR, "flags {flags:#x}");
    }
}

#[test]
fn non_context_handle_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context is not a valid context."
    let fx = Fixture::new();
    // SAFETY: no host pointer.
    let status = unsafe { create_error(fx.queue, 0, 64, null_mut()) };
    assert_eq!(status, CL_INVALID_CONTEXT);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    // SAFETY: no host pointer.
    let status = unsafe { create_error(foreign.handle(), 0, 64, null_mut()) };
    assert_eq!(status, CL_INVALID_CONTEXT);
}

// Host access flags

/// The status of each host access to `mem`: [read, write, read rect, write rect, map read,
/// map write, map write-invalidate].
fn host_accesses(fx: &Fixture, mem: cl_mem) -> [cl_int; 7] {
    let mut buf = [0u8; 16];
    let region = [4, 2, 1];
    let origin = [0, 0, 0];
    let read = api().read_buffer(fx.queue, mem, 0, &mut buf, Waits::NONE, None);
    let write = api().write_buffer(fx.queue, mem, 0, &buf, Waits::NONE, None);
    // SAFETY: blocking; the host rectangle (4 x 2, pitch 4) lies inside `buf`.
    let read_rect = unsafe {
        api().enqueue_read_buffer_rect_raw(
            fx.queue,
            mem,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            buf.as_mut_ptr().cast(),
            Waits::NONE,
            None,
        )
    };
    // SAFETY: as above, read from `buf`.
    let write_rect = unsafe {
        api().enqueue_write_buffer_rect_raw(
            fx.queue,
            mem,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            buf.as_ptr().cast(),
            Waits::NONE,
            None,
        )
    };
    let map = |flags| {
        let (ptr, status) =
            api().enqueue_map_buffer(fx.queue, mem, true, flags, 0, 16, Waits::NONE, None);
        if status == CL_SUCCESS {
            let unmap = api().enqueue_unmap_mem_object(fx.queue, mem, ptr, Waits::NONE, None);
            assert_eq!(unmap, CL_SUCCESS);
        } else {
            assert!(ptr.is_null(), "a failed map returned a pointer");
        }
        status
    };
    let statuses = [
        read,
        write,
        read_rect,
        write_rect,
        map(CL_MAP_READ),
        map(CL_MAP_WRITE),
        map(CL_MAP_WRITE_INVALIDATE_REGION),
    ];
    fx.finish();
    statuses
}

const OK: cl_int = CL_SUCCESS;
const OP: cl_int = CL_INVALID_OPERATION;

#[test]
fn buffer_without_host_access_flags_allows_every_host_access() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    assert_eq!(host_accesses(&fx, mem), [OK; 7]);
    release(mem);
}

#[test]
fn host_write_only_forbids_reads_and_read_maps() {
    // "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been
    // created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS" (likewise for
    // clEnqueueReadBufferRect); clEnqueueMapBuffer: "CL_INVALID_OPERATION if buffer has been
    // created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is set in
    // map_flags".
    let fx = Fixture::new();
    let mem = fx.buffer(CL_MEM_HOST_WRITE_ONLY, 64);
    assert_eq!(host_accesses(&fx, mem), [OP, OK, OP, OK, OP, OK, OK]);
    release(mem);
}

#[test]
fn host_read_only_forbids_writes_and_write_maps() {
    // "CL_INVALID_OPERATION if clEnqueueWriteBuffer is called on buffer which has been
    // created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS"; for maps: "... or if
    // buffer has been created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and
    // CL_MAP_WRITE or CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags."
    let fx = Fixture::new();
    let mem = fx.buffer(CL_MEM_HOST_READ_ONLY, 64);
    assert_eq!(host_accesses(&fx, mem), [OK, OP, OK, OP, OK, OP, OP]);
    release(mem);
}

#[test]
fn host_no_access_forbids_every_host_access() {
    let fx = Fixture::new();
    let mem = fx.buffer(CL_MEM_HOST_NO_ACCESS, 64);
    assert_eq!(host_accesses(&fx, mem), [OP; 7]);
    release(mem);
}

#[test]
fn host_access_flags_do_not_restrict_copies_and_fills() {
    // clEnqueueFillBuffer: "The usage information which indicates whether the memory object
    // can be read or written by a kernel and/or the host and is given by the cl_mem_flags
    // argument value specified when buffer is created is ignored by clEnqueueFillBuffer."
    // A copy is a device-side command: the host access flags do not apply to it.
    let fx = Fixture::new();
    let data = pattern(64, 2);
    let hidden = fx.buffer_from(CL_MEM_HOST_NO_ACCESS, &data);
    let visible = fx.buffer(0, 64);
    let status =
        api().enqueue_fill_buffer(fx.queue, hidden, Some(&[0x5a]), 1, 0, 8, Waits::NONE, None);
    assert_eq!(status, CL_SUCCESS);
    let status = api().enqueue_copy_buffer(fx.queue, hidden, visible, 0, 0, 64, Waits::NONE, None);
    assert_eq!(status, CL_SUCCESS);
    let mut expected = data.clone();
    expected[..8].fill(0x5a);
    assert_eq!(fx.read(visible, 0, 64), expected);
    release(hidden);
    release(visible);
}

// clGetMemObjectInfo

#[test]
fn mem_info_answers_have_the_sizes_of_their_types() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let size = |param| api().mem_object_info(mem, param).unwrap().len();
    assert_eq!(size(CL_MEM_TYPE), size_of::<cl_mem_object_type>());
    assert_eq!(size(CL_MEM_FLAGS), size_of::<cl_mem_flags>());
    assert_eq!(size(CL_MEM_SIZE), size_of::<usize>());
    assert_eq!(size(CL_MEM_HOST_PTR), size_of::<*mut c_void>());
    assert_eq!(size(CL_MEM_MAP_COUNT), size_of::<cl_uint>());
    assert_eq!(size(CL_MEM_REFERENCE_COUNT), size_of::<cl_uint>());
    assert_eq!(size(CL_MEM_CONTEXT), size_of::<cl_context>());
    assert_eq!(size(CL_MEM_ASSOCIATED_MEMOBJECT), size_of::<cl_mem>());
    assert_eq!(size(CL_MEM_OFFSET), size_of::<usize>());
    release(mem);
}

#[test]
fn mem_info_of_a_buffer_reports_its_creation() {
    let fx = Fixture::new();
    let mem = fx.buffer(CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, 1000);
    let api = api();
    assert_eq!(
        api.mem_object_scalar::<cl_mem_object_type>(mem, CL_MEM_TYPE),
        CL_MEM_OBJECT_BUFFER
    );
    assert_eq!(
        flags_of(mem),
        CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_COPY_HOST_PTR
    );
    assert_eq!(api.mem_object_scalar::<usize>(mem, CL_MEM_SIZE), 1000);
    assert!(host_ptr_of(mem).is_null());
    assert_eq!(map_count(mem), 0);
    assert_eq!(reference_count(mem), 1);
    assert_eq!(
        api.mem_object_scalar::<cl_context>(mem, CL_MEM_CONTEXT),
        fx.context
    );
    // CL_MEM_ASSOCIATED_MEMOBJECT: "Return memory object from which memobj is created. ...
    // Otherwise a NULL value is returned."
    assert!(
        api.mem_object_scalar::<cl_mem>(mem, CL_MEM_ASSOCIATED_MEMOBJECT)
            .is_null()
    );
    // CL_MEM_OFFSET: "Return offset if memobj is a sub-buffer object created using
    // clCreateSubBuffer. This returns 0 if memobj is not a subbuffer object."
    assert_eq!(api.mem_object_scalar::<usize>(mem, CL_MEM_OFFSET), 0);
    release(mem);
}

#[test]
fn mem_info_of_a_sub_buffer_reports_its_parent_and_origin() {
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(CL_MEM_READ_ONLY, 4 * align);
    let sub = api()
        .create_sub_buffer(parent, 0, align, 2 * align)
        .unwrap();
    let api = api();
    assert_eq!(
        api.mem_object_scalar::<cl_mem_object_type>(sub, CL_MEM_TYPE),
        CL_MEM_OBJECT_BUFFER
    );
    // CL_MEM_FLAGS: "If memobj is a sub-buffer the memory access qualifiers inherited from
    // parent buffer is also returned."
    assert_eq!(flags_of(sub), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR);
    assert_eq!(api.mem_object_scalar::<usize>(sub, CL_MEM_SIZE), 2 * align);
    assert_eq!(
        api.mem_object_scalar::<cl_context>(sub, CL_MEM_CONTEXT),
        fx.context
    );
    assert_eq!(
        api.mem_object_scalar::<cl_mem>(sub, CL_MEM_ASSOCIATED_MEMOBJECT),
        parent
    );
    assert_eq!(api.mem_object_scalar::<usize>(sub, CL_MEM_OFFSET), align);
    assert_eq!(map_count(sub), 0);
    assert_eq!(reference_count(sub), 1);
    assert!(host_ptr_of(sub).is_null());
    release(sub);
    release(parent);
}

#[test]
fn mem_info_unknown_param_is_invalid_value() {
    // "CL_INVALID_VALUE if param_name is not valid".
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let mut size = 0;
    for param in [0, CL_MEM_OFFSET + 1, CL_IMAGE_FORMAT] {
        let status = api().query_mem_object_info(mem, param, 0, None, Some(&mut size));
        assert_eq!(status, CL_INVALID_VALUE, "param {param:#x}");
    }
    release(mem);
}

#[test]
fn mem_info_into_a_too_small_buffer_is_invalid_value() {
    // "... or if size in bytes specified by param_value_size is < size of return type ...
    // and param_value is not NULL."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let mut value = [0u8; 8];
    let status = api().query_mem_object_info(mem, CL_MEM_SIZE, 4, Some(&mut value), None);
    assert_eq!(status, CL_INVALID_VALUE);
    let status = api().query_mem_object_info(mem, CL_MEM_FLAGS, 7, Some(&mut value), None);
    assert_eq!(status, CL_INVALID_VALUE);
    release(mem);
}

#[test]
fn mem_info_of_a_non_mem_object_is_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if memobj is a not a valid memory object."
    let fx = Fixture::new();
    let mut size = 0;
    let status = api().query_mem_object_info(fx.queue, CL_MEM_SIZE, 0, None, Some(&mut size));
    assert_eq!(status, CL_INVALID_MEM_OBJECT);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    let status =
        api().query_mem_object_info(foreign.handle(), CL_MEM_SIZE, 0, None, Some(&mut size));
    assert_eq!(status, CL_INVALID_MEM_OBJECT);
}

// Retain / release

#[test]
fn retain_and_release_track_the_reference_count() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    assert_eq!(reference_count(mem), 1);
    assert_eq!(api().retain_mem_object(mem), CL_SUCCESS);
    assert_eq!(api().retain_mem_object(mem), CL_SUCCESS);
    assert_eq!(reference_count(mem), 3);
    release(mem);
    assert_eq!(reference_count(mem), 2);
    release(mem);
    assert_eq!(reference_count(mem), 1);
    release(mem);
}

#[test]
fn retain_or_release_of_a_non_mem_object_is_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if memobj is not a valid memory object."
    let fx = Fixture::new();
    assert_eq!(api().retain_mem_object(fx.queue), CL_INVALID_MEM_OBJECT);
    assert_eq!(api().release_mem_object(fx.context), CL_INVALID_MEM_OBJECT);
}

#[test]
fn a_buffer_keeps_its_context_alive() {
    // clReleaseContext: "After the context reference count becomes zero and all the objects
    // attached to context (such as memory objects, command-queues) are released, the
    // context is deleted." Until then the buffer stays usable.
    let context = api().create_context(None, &[device()]).unwrap();
    let queue = api().create_command_queue(context, device(), 0).unwrap();
    let mem = api().create_buffer(context, 0, 64).unwrap();
    assert_eq!(api().release_context(context), CL_SUCCESS);
    let data = pattern(64, 4);
    assert_eq!(
        api().write_buffer(queue, mem, 0, &data, Waits::NONE, None),
        CL_SUCCESS
    );
    let mut out = [0u8; 64];
    assert_eq!(
        api().read_buffer(queue, mem, 0, &mut out, Waits::NONE, None),
        CL_SUCCESS
    );
    assert_eq!(out[..], data[..]);
    release(mem);
    assert_eq!(api().release_command_queue(queue), CL_SUCCESS);
}

// clCreateSubBuffer

#[test]
fn sub_buffer_views_the_parent_at_its_origin() {
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 8 * align);
    let sub = api()
        .create_sub_buffer(parent, 0, 2 * align, 3 * align)
        .unwrap();
    // Written through the sub-buffer, read through the parent.
    let data = pattern(100, 21);
    fx.write(sub, 8, &data);
    assert_eq!(fx.read(parent, 2 * align + 8, 100), data);
    // And the other way.
    let more = pattern(50, 22);
    fx.write(parent, 2 * align + 200, &more);
    assert_eq!(fx.read(sub, 200, 50), more);
    // The rest of the parent is untouched.
    let whole = fx.read(parent, 0, 8 * align);
    assert!(whole[..2 * align + 8].iter().all(|&b| b == 0));
    assert!(whole[2 * align + 250..].iter().all(|&b| b == 0));
    release(sub);
    release(parent);
}

#[test]
fn sub_buffer_bounds_are_its_own() {
    // A sub-buffer is a buffer of `size` bytes: commands past its end are out of bounds even
    // when the parent continues. "CL_INVALID_VALUE if the region being read or written
    // specified by (offset, size) is out of bounds".
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 4 * align);
    let sub = api().create_sub_buffer(parent, 0, align, align).unwrap();
    let mut out = vec![0u8; 16];
    let status = api().read_buffer(fx.queue, sub, align - 8, &mut out, Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE);
    release(sub);
    release(parent);
}

#[test]
fn sub_buffer_of_a_use_host_ptr_parent_reports_host_ptr_plus_origin() {
    // "If buffer is created with CL_MEM_USE_HOST_PTR, the host_ptr associated with the buffer
    // object returned is host_ptr + origin."
    let fx = Fixture::new();
    let align = base_align_bytes();
    let host = HostMem::new(&pattern(4 * align, 8));
    let parent = host.buffer(fx.context, 0);
    let sub = api()
        .create_sub_buffer(parent, 0, 2 * align, align)
        .unwrap();
    assert_eq!(host_ptr_of(sub), host.ptr().wrapping_byte_add(2 * align));
    assert_eq!(flags_of(sub), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR);
    assert_eq!(
        fx.read(sub, 0, align),
        host.bytes()[2 * align..3 * align].to_vec()
    );
    release(sub);
    release(parent);
}

#[test]
fn sub_buffer_at_an_aligned_origin_is_accepted() {
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 4 * align);
    for origin in [0, align, 3 * align] {
        assert_eq!(
            sub_error(parent, 0, origin, align),
            CL_SUCCESS,
            "origin {origin}"
        );
    }
    // The whole parent, and a one-byte region, are valid regions.
    assert_eq!(sub_error(parent, 0, 0, 4 * align), CL_SUCCESS);
    assert_eq!(sub_error(parent, 0, 3 * align, 1), CL_SUCCESS);
    release(parent);
}

#[test]
fn misaligned_sub_buffer_origin_is_misaligned_sub_buffer_offset() {
    // "CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in context associated with
    // buffer for which the origin value is aligned to the CL_DEVICE_MEM_BASE_ADDR_ALIGN
    // value."
    let fx = Fixture::new();
    let align = base_align_bytes();
    assert!(
        align > 1,
        "CL_DEVICE_MEM_BASE_ADDR_ALIGN is {} bits",
        align * 8
    );
    let parent = fx.buffer(0, 4 * align);
    for origin in [1, align / 2, align + 4, 2 * align - 1] {
        let status = sub_error(parent, 0, origin, 16);
        assert_eq!(status, CL_MISALIGNED_SUB_BUFFER_OFFSET, "origin {origin}");
    }
    release(parent);
}

#[test]
fn sub_buffer_out_of_bounds_is_invalid_value() {
    // "If the region specified by (origin, size) is out of bounds in buffer, a
    // CL_INVALID_VALUE error is returned in errcode_ret."
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 4 * align);
    for (origin, size) in [
        (0, 4 * align + 1),
        (3 * align, align + 1),
        (4 * align, 1),
        (8 * align, align),
        (align, usize::MAX - align + 1),
    ] {
        let status = sub_error(parent, 0, origin, size);
        assert_eq!(status, CL_INVALID_VALUE, "origin {origin} size {size}");
    }
    release(parent);
}

#[test]
fn sub_buffer_of_size_zero_is_invalid_buffer_size() {
    // "CL_INVALID_BUFFER_SIZE if size is 0."
    let fx = Fixture::new();
    let parent = fx.buffer(0, 1024);
    assert_eq!(sub_error(parent, 0, 0, 0), CL_INVALID_BUFFER_SIZE);
    release(parent);
}

#[test]
fn sub_buffer_of_a_sub_buffer_is_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer
    // object."
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 4 * align);
    let sub = api().create_sub_buffer(parent, 0, 0, 2 * align).unwrap();
    assert_eq!(sub_error(sub, 0, 0, align), CL_INVALID_MEM_OBJECT);
    release(sub);
    release(parent);
}

#[test]
fn sub_buffer_of_a_non_mem_object_is_invalid_mem_object() {
    let fx = Fixture::new();
    assert_eq!(sub_error(fx.queue, 0, 0, 16), CL_INVALID_MEM_OBJECT);
}

#[test]
fn unknown_create_type_or_null_create_info_is_invalid_value() {
    // "CL_INVALID_VALUE if value specified in buffer_create_type is not valid"; "CL_INVALID_
    // VALUE if value(s) specified in buffer_create_info (for a given buffer_create_type) is
    // not valid or if buffer_create_info is NULL."
    let fx = Fixture::new();
    let parent = fx.buffer(0, 1024);
    let region = cl_buffer_region {
        origin: 0,
        size: 64,
    };
    let (sub, status) = api().create_sub_buffer_raw(parent, 0, 0x1221, Some(&region));
    assert!(sub.is_null());
    assert_eq!(status, CL_INVALID_VALUE);
    let (sub, status) = api().create_sub_buffer_raw(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, None);
    assert!(sub.is_null());
    assert_eq!(status, CL_INVALID_VALUE);
    release(parent);
}

#[test]
fn sub_buffer_inherits_unspecified_flags() {
    // "If the CL_MEM_READ_WRITE, CL_MEM_READ_ONLY or CL_MEM_WRITE_ONLY values are not
    // specified in flags, they are inherited from the corresponding memory access qualifers
    // associated with buffer. The CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR and
    // CL_MEM_COPY_HOST_PTR values cannot be specified in flags but are inherited ... If the
    // CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS values are not
    // specified in flags, they are inherited".
    let fx = Fixture::new();
    let align = base_align_bytes();
    let host = HostMem::new(&vec![0; 4 * align]);
    for parent_flags in [
        CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY,
        CL_MEM_WRITE_ONLY | CL_MEM_HOST_WRITE_ONLY,
        CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
    ] {
        let parent = host.buffer(fx.context, parent_flags);
        let sub = api().create_sub_buffer(parent, 0, align, align).unwrap();
        assert_eq!(flags_of(sub), parent_flags | CL_MEM_USE_HOST_PTR);
        release(sub);
        release(parent);
    }
    let parent = fx.buffer(CL_MEM_ALLOC_HOST_PTR, 2 * align);
    let sub = api().create_sub_buffer(parent, 0, 0, align).unwrap();
    assert_eq!(
        flags_of(sub),
        CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR
    );
    release(sub);
    release(parent);
}

#[test]
fn sub_buffer_may_narrow_the_access_of_a_read_write_parent() {
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(CL_MEM_READ_WRITE, 2 * align);
    for flags in [CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY] {
        let sub = api().create_sub_buffer(parent, flags, 0, align).unwrap();
        assert_eq!(
            flags_of(sub) & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY),
            flags
        );
        release(sub);
    }
    for host in [
        CL_MEM_HOST_READ_ONLY,
        CL_MEM_HOST_WRITE_ONLY,
        CL_MEM_HOST_NO_ACCESS,
    ] {
        let sub = api().create_sub_buffer(parent, host, 0, align).unwrap();
        assert_eq!(flags_of(sub) & host, host);
        release(sub);
    }
    release(parent);
}

#[test]
fn sub_buffer_widening_the_access_of_its_parent_is_invalid_value() {
    // "CL_INVALID_VALUE if buffer was created with CL_MEM_WRITE_ONLY and flags specifies
    // CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, or if buffer was created with CL_MEM_READ_ONLY
    // and flags specifies CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY".
    let fx = Fixture::new();
    let cases = [
        (CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE),
        (CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY),
        (CL_MEM_READ_ONLY, CL_MEM_READ_WRITE),
        (CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY),
    ];
    for (parent_flags, flags) in cases {
        let parent = fx.buffer(parent_flags, 256);
        let status = sub_error(parent, flags, 0, 64);
        assert_eq!(status, CL_INVALID_VALUE, "{parent_flags:#x} → {flags:#x}");
        release(parent);
    }
}

#[test]
fn sub_buffer_with_a_host_pointer_flag_is_invalid_value() {
    // "... or if flags specifies CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR."
    let fx = Fixture::new();
    let parent = fx.buffer(0, 256);
    for flags in [
        CL_MEM_USE_HOST_PTR,
        CL_MEM_ALLOC_HOST_PTR,
        CL_MEM_COPY_HOST_PTR,
    ] {
        assert_eq!(
            sub_error(parent, flags, 0, 64),
            CL_INVALID_VALUE,
            "{flags:#x}"
        );
    }
    release(parent);
}

#[test]
fn sub_buffer_with_conflicting_host_access_is_invalid_value() {
    // "CL_INVALID_VALUE if buffer was created with CL_MEM_HOST_WRITE_ONLY and flags specify
    // CL_MEM_HOST_READ_ONLY, or if buffer was created with CL_MEM_HOST_READ_ONLY and flags
    // specify CL_MEM_HOST_WRITE_ONLY, or if buffer was created with CL_MEM_HOST_NO_ACCESS and
    // flags specify CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_WRITE_ONLY."
    let fx = Fixture::new();
    let cases = [
        (CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY),
        (CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY),
        (CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_READ_ONLY),
        (CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_WRITE_ONLY),
    ];
    for (parent_flags, flags) in cases {
        let parent = fx.buffer(parent_flags, 256);
        let status = sub_error(parent, flags, 0, 64);
        assert_eq!(status, CL_INVALID_VALUE, "{parent_flags:#x} → {flags:#x}");
        release(parent);
    }
}

#[test]
fn sub_buffer_with_invalid_flags_is_invalid_value() {
    // The flags are "a bit-field ... described in table 5.3": the combination rules of
    // clCreateBuffer apply.
    let fx = Fixture::new();
    let parent = fx.buffer(0, 256);
    for flags in [
        CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
        CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
        1 << 20,
    ] {
        assert_eq!(
            sub_error(parent, flags, 0, 64),
            CL_INVALID_VALUE,
            "{flags:#x}"
        );
    }
    release(parent);
}

#[test]
fn inherited_host_access_is_enforced_on_the_sub_buffer() {
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(CL_MEM_HOST_NO_ACCESS, 2 * align);
    let sub = api().create_sub_buffer(parent, 0, align, align).unwrap();
    assert_eq!(host_accesses(&fx, sub), [OP; 7]);
    release(sub);
    release(parent);
    // And a sub-buffer's own host access flag is enforced on it alone.
    let parent = fx.buffer(0, 2 * align);
    let sub = api()
        .create_sub_buffer(parent, CL_MEM_HOST_READ_ONLY, 0, align)
        .unwrap();
    assert_eq!(host_accesses(&fx, sub), [OK, OP, OK, OP, OK, OP, OP]);
    assert_eq!(host_accesses(&fx, parent), [OK; 7]);
    release(sub);
    release(parent);
}

// clSetMemObjectDestructorCallback

/// What destructor callbacks recorded: (callback id, memobj).
struct DestructorLog {
    calls: Mutex<Vec<(u32, usize)>>,
}

/// One callback's `user_data`.
struct DestructorSlot {
    id: u32,
    log: &'static DestructorLog,
}

extern "C" fn record_destruction(mem: cl_mem, user_data: *mut c_void) {
    // SAFETY: `user_data` is a leaked `DestructorSlot` (see `register`).
    let slot = unsafe { &*user_data.cast::<DestructorSlot>() };
    slot.log.calls.lock().unwrap().push((slot.id, mem as usize));
}

fn new_log() -> &'static DestructorLog {
    Box::leak(Box::new(DestructorLog {
        calls: Mutex::new(Vec::new()),
    }))
}

/// Registers callback `id` on `mem`, logging to `log`.
fn register(mem: cl_mem, id: u32, log: &'static DestructorLog) -> cl_int {
    let slot: &'static DestructorSlot = Box::leak(Box::new(DestructorSlot { id, log }));
    // SAFETY: the slot is leaked, so valid whenever the callback runs.
    unsafe {
        api().set_mem_object_destructor_callback(
            mem,
            Some(record_destruction),
            (slot as *const DestructorSlot).cast_mut().cast(),
        )
    }
}

fn calls(log: &DestructorLog) -> Vec<(u32, usize)> {
    log.calls.lock().unwrap().clone()
}

/// Waits (the callbacks may be called asynchronously) until `log` has `n` calls.
fn wait_for_calls(log: &DestructorLog, n: usize) -> Vec<(u32, usize)> {
    eventually(Duration::from_secs(10), || calls(log).len() >= n);
    calls(log)
}

/// A short grace period in which a callback that should not run would have run.
fn settle() {
    std::thread::sleep(Duration::from_millis(30));
}

#[test]
fn destructor_callbacks_run_after_the_last_release_in_reverse_order() {
    // "Each call to clSetMemObjectDestructorCallback registers the specified user callback
    // function on a callback stack associated with memobj. The registered user callback
    // functions are called in the reverse order in which they were registered."
    let fx = Fixture::new();
    let log = new_log();
    let mem = fx.buffer(0, 64);
    for id in 1..=3 {
        assert_eq!(register(mem, id, log), CL_SUCCESS);
    }
    assert_eq!(api().retain_mem_object(mem), CL_SUCCESS);
    release(mem);
    settle();
    assert!(calls(log).is_empty(), "called while a reference remained");
    release(mem);
    let expected: Vec<(u32, usize)> = [3, 2, 1].iter().map(|&id| (id, mem as usize)).collect();
    assert_eq!(wait_for_calls(log, 3), expected);
}

#[test]
fn destructor_callback_waits_for_commands_using_the_buffer() {
    // clReleaseMemObject: "After the memobj reference count becomes zero and commands queued
    // to any command-queue(s) that use memobj have finished, the memory object is deleted."
    let fx = Fixture::new();
    let log = new_log();
    let mem = fx.buffer(0, 64);
    assert_eq!(register(mem, 1, log), CL_SUCCESS);
    let gate = api().create_user_event(fx.context).unwrap();
    let status = api().enqueue_fill_buffer(
        fx.queue,
        mem,
        Some(&[1]),
        1,
        0,
        64,
        Waits::on(&[gate]),
        None,
    );
    assert_eq!(status, CL_SUCCESS);
    release(mem);
    settle();
    assert!(
        calls(log).is_empty(),
        "called while a command using it is queued"
    );
    assert_eq!(api().set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    fx.finish();
    assert_eq!(wait_for_calls(log, 1), [(1, mem as usize)]);
    release_event(gate);
}

/// The program built from `source` and its kernel `k`.
fn built_kernel(fx: &Fixture, source: &str) -> (cl_program, cl_kernel) {
    let program = api()
        .create_program_with_source(fx.context, &[source])
        .expect("clCreateProgramWithSource");
    assert_eq!(api().build_program(program, c""), CL_SUCCESS);
    let kernel = api().create_kernel(program, c"k").expect("clCreateKernel");
    (program, kernel)
}

#[test]
fn kernel_argument_does_not_keep_its_buffer_alive() {
    // The CTS's retain_mem_object_set_kernel_arg: a buffer set as a kernel argument and then
    // released by the application is deleted (its callback runs) while the kernel lives.
    let fx = Fixture::new();
    let log = new_log();
    let api = api();
    let (program, kernel) = built_kernel(&fx, "kernel void k(global int *x) { x[0] = 7; }");
    let mem = fx.buffer(0, 64);
    assert_eq!(register(mem, 1, log), CL_SUCCESS);
    assert_eq!(api.set_kernel_arg_mem(kernel, 0, mem), CL_SUCCESS);
    release(mem);
    assert_eq!(wait_for_calls(log, 1), [(1, mem as usize)]);
    // A launch whose argument is gone is refused: "CL_INVALID_KERNEL_ARGS if the kernel
    // argument values have not been specified".
    assert_eq!(
        api.enqueue_nd_range_kernel(
            fx.queue,
            kernel,
            1,
            None,
            Some(&[1]),
            None,
            Waits::NONE,
            None
        ),
        CL_INVALID_KERNEL_ARGS
    );
    // A new argument makes the kernel launchable again, and the launch holds its buffer
    // until it has run, even when released right after the enqueue.
    let fresh = fx.buffer(0, 64);
    assert_eq!(register(fresh, 2, log), CL_SUCCESS);
    assert_eq!(api.set_kernel_arg_mem(kernel, 0, fresh), CL_SUCCESS);
    let gate = api.create_user_event(fx.context).unwrap();
    assert_eq!(
        api.enqueue_nd_range_kernel(
            fx.queue,
            kernel,
            1,
            None,
            Some(&[1]),
            None,
            Waits::on(&[gate]),
            None
        ),
        CL_SUCCESS
    );
    release(fresh);
    settle();
    assert_eq!(
        calls(log).len(),
        1,
        "deleted while a launch using it is queued"
    );
    assert_eq!(api.set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    fx.finish();
    assert_eq!(wait_for_calls(log, 2)[1], (2, fresh as usize));
    release_event(gate);
    assert_eq!(api.release_kernel(kernel), CL_SUCCESS);
    assert_eq!(api.release_program(program), CL_SUCCESS);
}

/// Launches without events (a burst that passes no event pointer) hold their buffer until
/// they have run: a buffer the application releases meanwhile is deleted (its callback
/// runs) only after them, without another call into the queue.
#[test]
fn launches_without_events_hold_their_buffer_until_they_have_run() {
    let fx = Fixture::new();
    let log = new_log();
    let api = api();
    let (program, kernel) = built_kernel(
        &fx,
        "kernel void k(global int *x) { x[get_global_id(0)] += 1; }",
    );
    let mem = fx.buffer(0, 64);
    assert_eq!(register(mem, 1, log), CL_SUCCESS);
    assert_eq!(api.set_kernel_arg_mem(kernel, 0, mem), CL_SUCCESS);
    let gate = api.create_user_event(fx.context).unwrap();
    let launch = |waits: Waits<'_>| {
        api.enqueue_nd_range_kernel(fx.queue, kernel, 1, None, Some(&[4]), None, waits, None)
    };
    assert_eq!(launch(Waits::on(&[gate])), CL_SUCCESS);
    for _ in 0..50 {
        assert_eq!(launch(Waits::NONE), CL_SUCCESS);
    }
    // The kernel lets go of `mem`; only the queued launches hold it.
    let other = fx.buffer(0, 64);
    assert_eq!(api.set_kernel_arg_mem(kernel, 0, other), CL_SUCCESS);
    release(mem);
    settle();
    assert!(
        calls(log).is_empty(),
        "deleted while launches using it are queued"
    );
    assert_eq!(api.set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    assert_eq!(wait_for_calls(log, 1), [(1, mem as usize)]);
    fx.finish();
    release(other);
    release_event(gate);
    assert_eq!(api.release_kernel(kernel), CL_SUCCESS);
    assert_eq!(api.release_program(program), CL_SUCCESS);
}

#[test]
fn parent_is_deleted_only_after_its_sub_buffers() {
    // "If memobj is a buffer object, memobj cannot be deleted until all sub-buffer objects
    // associated with memobj are deleted."
    let fx = Fixture::new();
    let log = new_log();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 2 * align);
    let sub = api().create_sub_buffer(parent, 0, align, align).unwrap();
    assert_eq!(register(parent, 1, log), CL_SUCCESS);
    assert_eq!(register(sub, 2, log), CL_SUCCESS);
    release(parent);
    settle();
    assert!(
        calls(log).is_empty(),
        "parent deleted before its sub-buffer"
    );
    // The sub-buffer still works after its parent's last release.
    fx.write(sub, 0, &[9; 16]);
    assert_eq!(fx.read(sub, 0, 16), [9; 16]);
    release(sub);
    let recorded = wait_for_calls(log, 2);
    assert_eq!(recorded.len(), 2);
    assert!(recorded.contains(&(1, parent as usize)));
    assert!(recorded.contains(&(2, sub as usize)));
}

#[test]
fn null_destructor_callback_is_invalid_value() {
    // "CL_INVALID_VALUE if pfn_notify is NULL."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    // SAFETY: no callback.
    let status = unsafe { api().set_mem_object_destructor_callback(mem, None, null_mut()) };
    assert_eq!(status, CL_INVALID_VALUE);
    release(mem);
}

#[test]
fn destructor_callback_on_a_non_mem_object_is_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if memobj is not a valid memory object."
    let fx = Fixture::new();
    let log = new_log();
    assert_eq!(register(fx.queue, 1, log), CL_INVALID_MEM_OBJECT);
}

// clEnqueueReadBuffer / clEnqueueWriteBuffer

#[test]
fn blocking_write_then_read_round_trips_at_offsets() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 1024);
    let mut expected = vec![0u8; 1024];
    for (offset, len, seed) in [(0, 1, 1), (1, 100, 2), (333, 200, 3), (1000, 24, 4)] {
        let data = pattern(len, seed);
        fx.write(mem, offset, &data);
        expected[offset..offset + len].copy_from_slice(&data);
    }
    assert_eq!(fx.read(mem, 0, 1024), expected);
    assert_eq!(fx.read(mem, 333, 200), expected[333..533]);
    assert_eq!(fx.read(mem, 1023, 1), expected[1023..]);
    release(mem);
}

#[test]
fn non_blocking_write_and_read_complete_by_their_events() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64 * 1024);
    let data = pattern(48 * 1024, 77);
    let mut out = vec![0u8; 48 * 1024];
    let (mut written, mut read) = (null_mut(), null_mut());
    // SAFETY: `data` and `out` outlive the commands: the test waits for both events below.
    unsafe {
        let status = api().enqueue_write_buffer_raw(
            fx.queue,
            mem,
            false,
            1024,
            data.len(),
            data.as_ptr().cast(),
            Waits::NONE,
            Some(&mut written),
        );
        assert_eq!(status, CL_SUCCESS);
        let status = api().enqueue_read_buffer_raw(
            fx.queue,
            mem,
            false,
            1024,
            out.len(),
            out.as_mut_ptr().cast(),
            Waits::on(&[written]),
            Some(&mut read),
        );
        assert_eq!(status, CL_SUCCESS);
    }
    assert_eq!(api().wait_for_events(&[written, read]), CL_SUCCESS);
    assert_eq!(api().event_status(read), CL_COMPLETE);
    assert_eq!(out, data);
    release_event(written);
    release_event(read);
    release(mem);
}

#[test]
fn read_or_write_out_of_bounds_is_invalid_value() {
    // "CL_INVALID_VALUE if the region being read or written specified by (offset, size) is
    // out of bounds or if ptr is a NULL value or if size is 0."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let mut buf = [0u8; 128];
    for (offset, len) in [(0, 65), (1, 64), (64, 1), (100, 8), (usize::MAX - 3, 8)] {
        let status = api().read_buffer(fx.queue, mem, offset, &mut buf[..len], Waits::NONE, None);
        assert_eq!(status, CL_INVALID_VALUE, "read at {offset} of {len}");
        let status = api().write_buffer(fx.queue, mem, offset, &buf[..len], Waits::NONE, None);
        assert_eq!(status, CL_INVALID_VALUE, "write at {offset} of {len}");
    }
    release(mem);
}

#[test]
fn read_or_write_of_size_zero_is_invalid_value() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let mut buf = [0u8; 4];
    let status = api().read_buffer(fx.queue, mem, 0, &mut buf[..0], Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE);
    let status = api().write_buffer(fx.queue, mem, 0, &buf[..0], Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE);
    release(mem);
}

#[test]
fn read_or_write_with_a_null_ptr_is_invalid_value() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    for blocking in [true, false] {
        // SAFETY: the pointer is NULL, the error under test.
        let status = unsafe {
            api().enqueue_read_buffer_raw(
                fx.queue,
                mem,
                blocking,
                0,
                16,
                null_mut(),
                Waits::NONE,
                None,
            )
        };
        assert_eq!(status, CL_INVALID_VALUE);
        // SAFETY: as above.
        let status = unsafe {
            api().enqueue_write_buffer_raw(
                fx.queue,
                mem,
                blocking,
                0,
                16,
                std::ptr::null(),
                Waits::NONE,
                None,
            )
        };
        assert_eq!(status, CL_INVALID_VALUE);
    }
    release(mem);
}

#[test]
fn a_failed_enqueue_returns_no_event() {
    // "In case of an error enqueuing the command in the command-queue the event argument does
    // not return an event object": the out-parameter is left alone, or set to NULL.
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let marker = 0x1234usize as cl_event;
    let mut event = marker;
    let mut buf = [0u8; 8];
    let status = api().read_buffer(fx.queue, mem, 60, &mut buf, Waits::NONE, Some(&mut event));
    assert_eq!(status, CL_INVALID_VALUE);
    assert!(event == marker || event.is_null(), "{event:?}");
    release(mem);
}

// clEnqueueCopyBuffer

#[test]
fn copy_between_buffers_honours_both_offsets() {
    let fx = Fixture::new();
    let src_data = pattern(512, 31);
    let src = fx.buffer_from(0, &src_data);
    let dst = fx.buffer(0, 512);
    let mut event = null_mut();
    let status = api().enqueue_copy_buffer(
        fx.queue,
        src,
        dst,
        100,
        300,
        150,
        Waits::NONE,
        Some(&mut event),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    let mut expected = vec![0u8; 512];
    expected[300..450].copy_from_slice(&src_data[100..250]);
    assert_eq!(fx.read(dst, 0, 512), expected);
    // The source is unchanged.
    assert_eq!(fx.read(src, 0, 512), src_data);
    release_event(event);
    release(src);
    release(dst);
}

#[test]
fn copy_out_of_bounds_is_invalid_value() {
    // "CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset + size or dst_offset +
    // size require accessing elements outside the src_buffer and dst_buffer buffer objects
    // respectively."
    let fx = Fixture::new();
    let src = fx.buffer(0, 64);
    let dst = fx.buffer(0, 32);
    for (src_offset, dst_offset, size) in [
        (0, 0, 33),
        (0, 1, 32),
        (60, 0, 8),
        (64, 0, 1),
        (0, 32, 1),
        (usize::MAX, 0, 2),
    ] {
        let status = api().enqueue_copy_buffer(
            fx.queue,
            src,
            dst,
            src_offset,
            dst_offset,
            size,
            Waits::NONE,
            None,
        );
        assert_eq!(
            status, CL_INVALID_VALUE,
            "{src_offset} → {dst_offset} ({size})"
        );
    }
    release(src);
    release(dst);
}

#[test]
fn copy_of_size_zero_is_invalid_value() {
    // "CL_INVALID_VALUE if size is 0."
    let fx = Fixture::new();
    let src = fx.buffer(0, 64);
    let dst = fx.buffer(0, 64);
    let status = api().enqueue_copy_buffer(fx.queue, src, dst, 0, 0, 0, Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE);
    release(src);
    release(dst);
}

#[test]
fn overlapping_copy_within_one_buffer_is_mem_copy_overlap() {
    // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or sub-buffer
    // object and the source and destination regions overlap". "The regions overlap if
    // src_offset ≤ dst_offset ≤ src_offset + size - 1 or if dst_offset ≤ src_offset ≤
    // dst_offset + size - 1."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 256);
    for (src_offset, dst_offset, size) in [(0, 0, 16), (0, 8, 16), (8, 0, 16), (10, 25, 16)] {
        let status = api().enqueue_copy_buffer(
            fx.queue,
            mem,
            mem,
            src_offset,
            dst_offset,
            size,
            Waits::NONE,
            None,
        );
        assert_eq!(
            status, CL_MEM_COPY_OVERLAP,
            "{src_offset} → {dst_offset} ({size})"
        );
    }
    release(mem);
}

#[test]
fn non_overlapping_copy_within_one_buffer_succeeds() {
    let fx = Fixture::new();
    let data = pattern(256, 40);
    let mem = fx.buffer_from(0, &data);
    let mut expected = data.clone();
    for (src_offset, dst_offset, size) in [(0, 16, 16), (100, 50, 50), (200, 0, 56)] {
        let status = api().enqueue_copy_buffer(
            fx.queue,
            mem,
            mem,
            src_offset,
            dst_offset,
            size,
            Waits::NONE,
            None,
        );
        assert_eq!(status, CL_SUCCESS, "{src_offset} → {dst_offset} ({size})");
        expected.copy_within(src_offset..src_offset + size, dst_offset);
    }
    assert_eq!(fx.read(mem, 0, 256), expected);
    release(mem);
}

#[test]
fn copy_between_overlapping_sub_buffers_of_one_parent_is_mem_copy_overlap() {
    // "... or if src_buffer and dst_buffer are different sub-buffers of the same associated
    // buffer object and they overlap."
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 8 * align);
    let a = api().create_sub_buffer(parent, 0, 0, 4 * align).unwrap();
    let b = api()
        .create_sub_buffer(parent, 0, align, 4 * align)
        .unwrap();
    // a[align..align + 64] and b[0..64] are the same bytes of the parent.
    let status = api().enqueue_copy_buffer(fx.queue, a, b, align, 0, 64, Waits::NONE, None);
    assert_eq!(status, CL_MEM_COPY_OVERLAP);
    let status = api().enqueue_copy_buffer(fx.queue, b, a, 0, align + 32, 64, Waits::NONE, None);
    assert_eq!(status, CL_MEM_COPY_OVERLAP);
    release(a);
    release(b);
    release(parent);
}

#[test]
fn copy_between_disjoint_sub_buffers_of_one_parent_succeeds() {
    let fx = Fixture::new();
    let align = base_align_bytes();
    let data = pattern(4 * align, 50);
    let parent = fx.buffer_from(0, &data);
    let a = api().create_sub_buffer(parent, 0, 0, 2 * align).unwrap();
    let b = api()
        .create_sub_buffer(parent, 0, 2 * align, 2 * align)
        .unwrap();
    let status = api().enqueue_copy_buffer(fx.queue, a, b, 8, 16, 100, Waits::NONE, None);
    assert_eq!(status, CL_SUCCESS);
    let mut expected = data.clone();
    expected.copy_within(8..108, 2 * align + 16);
    assert_eq!(fx.read(parent, 0, 4 * align), expected);
    release(a);
    release(b);
    release(parent);
}

// Rectangular commands

/// The pitches a rectangle command uses: "If buffer_row_pitch is 0, buffer_row_pitch is
/// computed as region[0]. If buffer_slice_pitch is 0, buffer_slice_pitch is computed as
/// region[1] * buffer_row_pitch."
fn pitches(given: [usize; 2], region: [usize; 3]) -> (usize, usize) {
    let row = if given[0] == 0 { region[0] } else { given[0] };
    let slice = if given[1] == 0 {
        region[1] * row
    } else {
        given[1]
    };
    (row, slice)
}

/// The host reference of every rectangle command: copies `region` from `src` at
/// `src_origin` to `dst` at `dst_origin`, the offset of (x, y, z) being "origin[2] *
/// slice_pitch + origin[1] * row_pitch + origin[0]" with the default pitches resolved.
fn rect_reference(
    src: &[u8],
    src_origin: [usize; 3],
    src_pitches: [usize; 2],
    dst: &mut [u8],
    dst_origin: [usize; 3],
    dst_pitches: [usize; 2],
    region: [usize; 3],
) {
    let (src_row, src_slice) = pitches(src_pitches, region);
    let (dst_row, dst_slice) = pitches(dst_pitches, region);
    for z in 0..region[2] {
        for y in 0..region[1] {
            for x in 0..region[0] {
                let s = (src_origin[2] + z) * src_slice + (src_origin[1] + y) * src_row;
                let d = (dst_origin[2] + z) * dst_slice + (dst_origin[1] + y) * dst_row;
                dst[d + dst_origin[0] + x] = src[s + src_origin[0] + x];
            }
        }
    }
}

/// One rectangle transfer between a buffer and host memory, as a test case.
#[derive(Clone, Copy, Debug)]
struct Rect {
    buffer_origin: [usize; 3],
    host_origin: [usize; 3],
    region: [usize; 3],
    buffer_pitches: [usize; 2],
    host_pitches: [usize; 2],
}

/// Cases in 1, 2 and 3 dimensions, with explicit and default (zero) pitches.
const RECTS: [Rect; 6] = [
    // 1D, default pitches.
    Rect {
        buffer_origin: [5, 0, 0],
        host_origin: [2, 0, 0],
        region: [13, 1, 1],
        buffer_pitches: [0, 0],
        host_pitches: [0, 0],
    },
    // 2D, explicit pitches on both sides.
    Rect {
        buffer_origin: [3, 1, 0],
        host_origin: [1, 2, 0],
        region: [4, 3, 1],
        buffer_pitches: [16, 0],
        host_pitches: [10, 0],
    },
    // 2D, default pitches (rows packed at region[0]).
    Rect {
        buffer_origin: [1, 2, 0],
        host_origin: [0, 1, 0],
        region: [4, 3, 1],
        buffer_pitches: [0, 0],
        host_pitches: [0, 0],
    },
    // 3D, explicit row and slice pitches, slices padded.
    Rect {
        buffer_origin: [2, 1, 1],
        host_origin: [1, 0, 1],
        region: [5, 3, 2],
        buffer_pitches: [8, 40],
        host_pitches: [7, 28],
    },
    // 3D, default pitches.
    Rect {
        buffer_origin: [1, 1, 1],
        host_origin: [2, 0, 0],
        region: [3, 2, 2],
        buffer_pitches: [0, 0],
        host_pitches: [0, 0],
    },
    // 3D, explicit row pitch, default slice pitch.
    Rect {
        buffer_origin: [0, 0, 2],
        host_origin: [0, 2, 0],
        region: [6, 2, 3],
        buffer_pitches: [9, 0],
        host_pitches: [6, 0],
    },
];

/// The number of bytes a rectangle at `origin` with these pitches reaches.
fn extent(origin: [usize; 3], pitches_given: [usize; 2], region: [usize; 3]) -> usize {
    let (row, slice) = pitches(pitches_given, region);
    (origin[2] + region[2] - 1) * slice + (origin[1] + region[1] - 1) * row + origin[0] + region[0]
}

#[test]
fn write_buffer_rect_places_the_region_as_the_reference_does() {
    let fx = Fixture::new();
    for (i, case) in RECTS.iter().enumerate() {
        let size = extent(case.buffer_origin, case.buffer_pitches, case.region) + 7;
        let host_len = extent(case.host_origin, case.host_pitches, case.region) + 3;
        let initial = pattern(size, 100 + i as u8);
        let mem = fx.buffer_from(0, &initial);
        let host = pattern(host_len, 200 + i as u8);
        // SAFETY: blocking; the host rectangle lies inside `host` (its extent).
        let status = unsafe {
            api().enqueue_write_buffer_rect_raw(
                fx.queue,
                mem,
                true,
                Some(&case.buffer_origin),
                Some(&case.host_origin),
                Some(&case.region),
                case.buffer_pitches,
                case.host_pitches,
                host.as_ptr().cast(),
                Waits::NONE,
                None,
            )
        };
        assert_eq!(status, CL_SUCCESS, "case {i}: {case:?}");
        let mut expected = initial.clone();
        rect_reference(
            &host,
            case.host_origin,
            case.host_pitches,
            &mut expected,
            case.buffer_origin,
            case.buffer_pitches,
            case.region,
        );
        assert_eq!(fx.read(mem, 0, size), expected, "case {i}: {case:?}");
        release(mem);
    }
}

#[test]
fn read_buffer_rect_fills_the_host_region_as_the_reference_does() {
    let fx = Fixture::new();
    for (i, case) in RECTS.iter().enumerate() {
        let size = extent(case.buffer_origin, case.buffer_pitches, case.region) + 5;
        let host_len = extent(case.host_origin, case.host_pitches, case.region) + 9;
        let data = pattern(size, 10 + i as u8);
        let mem = fx.buffer_from(0, &data);
        for blocking in [true, false] {
            let mut host = vec![0xaa; host_len];
            let mut event = null_mut();
            // SAFETY: the host rectangle lies inside `host`, which outlives the command
            // (the test waits for its event before reading `host`).
            let status = unsafe {
                api().enqueue_read_buffer_rect_raw(
                    fx.queue,
                    mem,
                    blocking,
                    Some(&case.buffer_origin),
                    Some(&case.host_origin),
                    Some(&case.region),
                    case.buffer_pitches,
                    case.host_pitches,
                    host.as_mut_ptr().cast(),
                    Waits::NONE,
                    Some(&mut event),
                )
            };
            assert_eq!(status, CL_SUCCESS, "case {i}: {case:?}");
            assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
            release_event(event);
            let mut expected = vec![0xaa; host_len];
            rect_reference(
                &data,
                case.buffer_origin,
                case.buffer_pitches,
                &mut expected,
                case.host_origin,
                case.host_pitches,
                case.region,
            );
            assert_eq!(host, expected, "case {i} (blocking {blocking}): {case:?}");
        }
        release(mem);
    }
}

#[test]
fn copy_buffer_rect_copies_the_region_as_the_reference_does() {
    let fx = Fixture::new();
    for (i, case) in RECTS.iter().enumerate() {
        // The "buffer" side of the case is the source, the "host" side the destination.
        let src_size = extent(case.buffer_origin, case.buffer_pitches, case.region) + 2;
        let dst_size = extent(case.host_origin, case.host_pitches, case.region) + 4;
        let src_data = pattern(src_size, 60 + i as u8);
        let dst_data = pattern(dst_size, 160 + i as u8);
        let src = fx.buffer_from(0, &src_data);
        let dst = fx.buffer_from(0, &dst_data);
        let status = api().enqueue_copy_buffer_rect(
            fx.queue,
            src,
            dst,
            Some(&case.buffer_origin),
            Some(&case.host_origin),
            Some(&case.region),
            case.buffer_pitches,
            case.host_pitches,
            Waits::NONE,
            None,
        );
        assert_eq!(status, CL_SUCCESS, "case {i}: {case:?}");
        let mut expected = dst_data.clone();
        rect_reference(
            &src_data,
            case.buffer_origin,
            case.buffer_pitches,
            &mut expected,
            case.host_origin,
            case.host_pitches,
            case.region,
        );
        assert_eq!(fx.read(dst, 0, dst_size), expected, "case {i}: {case:?}");
        release(src);
        release(dst);
    }
}

/// The status of a blocking read and a blocking write rectangle on `mem` (host memory of
/// 4 KiB, large enough for every case passed).
fn read_write_rect_status(
    fx: &Fixture,
    mem: cl_mem,
    region: [usize; 3],
    buffer_pitches: [usize; 2],
    host_pitches: [usize; 2],
) -> [cl_int; 2] {
    let mut host = vec![0u8; 4096];
    let origin = [0, 0, 0];
    // SAFETY: blocking; every case the tests pass stays inside 4 KiB of host memory.
    let read = unsafe {
        api().enqueue_read_buffer_rect_raw(
            fx.queue,
            mem,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            buffer_pitches,
            host_pitches,
            host.as_mut_ptr().cast(),
            Waits::NONE,
            None,
        )
    };
    // SAFETY: as above.
    let write = unsafe {
        api().enqueue_write_buffer_rect_raw(
            fx.queue,
            mem,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            buffer_pitches,
            host_pitches,
            host.as_ptr().cast(),
            Waits::NONE,
            None,
        )
    };
    [read, write]
}

const INVALID2: [cl_int; 2] = [CL_INVALID_VALUE; 2];

#[test]
fn rect_row_pitch_below_region_width_is_invalid_value() {
    // "CL_INVALID_VALUE if buffer_row_pitch is not 0 and is less than region[0]"; "if
    // host_row_pitch is not 0 and is less than region[0]".
    let fx = Fixture::new();
    let mem = fx.buffer(0, 1024);
    let region = [8, 2, 1];
    assert_eq!(
        read_write_rect_status(&fx, mem, region, [4, 0], [0, 0]),
        INVALID2
    );
    assert_eq!(
        read_write_rect_status(&fx, mem, region, [0, 0], [7, 0]),
        INVALID2
    );
    // The same pitches equal to region[0] are valid.
    assert_eq!(
        read_write_rect_status(&fx, mem, region, [8, 0], [8, 0]),
        [CL_SUCCESS; 2]
    );
    release(mem);
}

#[test]
fn rect_slice_pitch_below_a_slice_is_invalid_value() {
    // "CL_INVALID_VALUE if buffer_slice_pitch is not 0 and is less than region[1] *
    // buffer_row_pitch and not a multiple of buffer_row_pitch" (and the same for
    // host_slice_pitch). 12 is both less than 2 * 8 and not a multiple of 8.
    let fx = Fixture::new();
    let mem = fx.buffer(0, 1024);
    let region = [4, 2, 2];
    assert_eq!(
        read_write_rect_status(&fx, mem, region, [8, 12], [0, 0]),
        INVALID2
    );
    assert_eq!(
        read_write_rect_status(&fx, mem, region, [0, 0], [8, 12]),
        INVALID2
    );
    assert_eq!(
        read_write_rect_status(&fx, mem, region, [8, 16], [8, 24]),
        [CL_SUCCESS; 2]
    );
    release(mem);
}

#[test]
fn rect_region_with_a_zero_is_invalid_value() {
    // "CL_INVALID_VALUE if any region array element is 0."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 1024);
    for region in [[0, 1, 1], [4, 0, 1], [4, 2, 0]] {
        assert_eq!(
            read_write_rect_status(&fx, mem, region, [0, 0], [0, 0]),
            INVALID2,
            "region {region:?}"
        );
    }
    release(mem);
}

#[test]
fn rect_out_of_the_buffer_is_invalid_value() {
    // "CL_INVALID_VALUE if the region being read or written specified by (buffer_origin,
    // region, buffer_row_pitch, buffer_slice_pitch) is out of bounds."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 100);
    // 10 rows of 10 fit exactly; one more row, or a wider pitch, does not.
    assert_eq!(
        read_write_rect_status(&fx, mem, [10, 10, 1], [0, 0], [0, 0]),
        [CL_SUCCESS; 2]
    );
    assert_eq!(
        read_write_rect_status(&fx, mem, [10, 11, 1], [0, 0], [0, 0]),
        INVALID2
    );
    assert_eq!(
        read_write_rect_status(&fx, mem, [10, 10, 1], [11, 0], [0, 0]),
        INVALID2
    );
    assert_eq!(
        read_write_rect_status(&fx, mem, [5, 5, 5], [0, 0], [0, 0]),
        INVALID2
    );
    release(mem);
}

#[test]
fn rect_with_a_null_ptr_is_invalid_value() {
    // "CL_INVALID_VALUE if ptr is a NULL value."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 256);
    let (origin, region) = ([0, 0, 0], [4, 4, 1]);
    // SAFETY: the pointer is NULL, the error under test.
    let read = unsafe {
        api().enqueue_read_buffer_rect_raw(
            fx.queue,
            mem,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            null_mut(),
            Waits::NONE,
            None,
        )
    };
    // SAFETY: as above.
    let write = unsafe {
        api().enqueue_write_buffer_rect_raw(
            fx.queue,
            mem,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            std::ptr::null(),
            Waits::NONE,
            None,
        )
    };
    assert_eq!([read, write], INVALID2);
    release(mem);
}

/// The status of a `clEnqueueCopyBufferRect` from origin 0 to origin 0.
fn copy_rect_status(
    fx: &Fixture,
    src: cl_mem,
    dst: cl_mem,
    region: [usize; 3],
    src_pitches: [usize; 2],
    dst_pitches: [usize; 2],
) -> cl_int {
    api().enqueue_copy_buffer_rect(
        fx.queue,
        src,
        dst,
        Some(&[0, 0, 0]),
        Some(&[0, 0, 0]),
        Some(&region),
        src_pitches,
        dst_pitches,
        Waits::NONE,
        None,
    )
}

#[test]
fn copy_rect_pitch_errors_are_invalid_value() {
    // "CL_INVALID_VALUE if src_row_pitch is not 0 and is less than region[0]" (dst alike);
    // "CL_INVALID_VALUE if src_slice_pitch is not 0 and is less than region[1] *
    // src_row_pitch or if src_slice_pitch is not 0 and is not a multiple of src_row_pitch"
    // (dst alike).
    let fx = Fixture::new();
    let src = fx.buffer(0, 1024);
    let dst = fx.buffer(0, 1024);
    let region = [8, 2, 2];
    for (src_pitches, dst_pitches) in [
        ([4, 0], [0, 0]),
        ([0, 0], [7, 0]),
        ([8, 8], [0, 0]),
        ([0, 0], [8, 8]),
        ([8, 20], [0, 0]),
        ([0, 0], [8, 20]),
    ] {
        let status = copy_rect_status(&fx, src, dst, region, src_pitches, dst_pitches);
        assert_eq!(
            status, CL_INVALID_VALUE,
            "{src_pitches:?} → {dst_pitches:?}"
        );
    }
    assert_eq!(
        copy_rect_status(&fx, src, dst, region, [8, 16], [16, 48]),
        CL_SUCCESS
    );
    release(src);
    release(dst);
}

#[test]
fn copy_rect_region_with_a_zero_or_out_of_bounds_is_invalid_value() {
    // "CL_INVALID_VALUE if any region array element is 0"; "if (src_origin, region,
    // src_row_pitch, src_slice_pitch) or (dst_origin, region, dst_row_pitch,
    // dst_slice_pitch) require accessing elements outside the src_buffer and dst_buffer
    // buffer objects respectively."
    let fx = Fixture::new();
    let src = fx.buffer(0, 100);
    let dst = fx.buffer(0, 50);
    for region in [[0, 1, 1], [1, 0, 1], [1, 1, 0]] {
        let status = copy_rect_status(&fx, src, dst, region, [0, 0], [0, 0]);
        assert_eq!(status, CL_INVALID_VALUE, "region {region:?}");
    }
    assert_eq!(
        copy_rect_status(&fx, src, dst, [10, 5, 1], [0, 0], [0, 0]),
        CL_SUCCESS
    );
    assert_eq!(
        copy_rect_status(&fx, src, dst, [10, 6, 1], [0, 0], [0, 0]),
        CL_INVALID_VALUE
    );
    assert_eq!(
        copy_rect_status(&fx, src, dst, [10, 5, 1], [0, 0], [11, 0]),
        CL_INVALID_VALUE
    );
    assert_eq!(
        copy_rect_status(&fx, dst, src, [10, 5, 1], [21, 0], [0, 0]),
        CL_INVALID_VALUE
    );
    release(src);
    release(dst);
}

#[test]
fn copy_rect_within_one_buffer_with_different_pitches_is_invalid_value() {
    // "CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer object and
    // src_slice_pitch is not equal to dst_slice_pitch and src_row_pitch is not equal to
    // dst_row_pitch."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 4096);
    let copy = |src_origin: [usize; 3], dst_origin: [usize; 3], pitches: [[usize; 2]; 2]| {
        api().enqueue_copy_buffer_rect(
            fx.queue,
            mem,
            mem,
            Some(&src_origin),
            Some(&dst_origin),
            Some(&[4, 2, 2]),
            pitches[0],
            pitches[1],
            Waits::NONE,
            None,
        )
    };
    // Rectangles far apart, so only the pitches are wrong.
    let status = copy([0, 0, 0], [0, 0, 20], [[8, 32], [16, 64]]);
    assert_eq!(status, CL_INVALID_VALUE);
    release(mem);
}

#[test]
fn overlapping_copy_rect_within_one_buffer_is_mem_copy_overlap() {
    // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or sub-buffer
    // object and the source and destination regions overlap" (Appendix F).
    let fx = Fixture::new();
    let mem = fx.buffer(0, 256);
    let copy = |src_origin: [usize; 3], dst_origin: [usize; 3], region: [usize; 3]| {
        api().enqueue_copy_buffer_rect(
            fx.queue,
            mem,
            mem,
            Some(&src_origin),
            Some(&dst_origin),
            Some(&region),
            [16, 0],
            [16, 0],
            Waits::NONE,
            None,
        )
    };
    // Same rectangle; shifted by one column; shifted by one row.
    for (src, dst) in [
        ([0, 0, 0], [0, 0, 0]),
        ([0, 0, 0], [1, 0, 0]),
        ([2, 1, 0], [2, 2, 0]),
    ] {
        assert_eq!(
            copy(src, dst, [8, 4, 1]),
            CL_MEM_COPY_OVERLAP,
            "{src:?} → {dst:?}"
        );
    }
    release(mem);
}

#[test]
fn interleaved_copy_rect_within_one_buffer_succeeds() {
    // Appendix F: "No overlap if region[0] for dst or src fits in the gap between region[0]
    // and row_pitch": the left and right halves of 8 rows of 16 bytes do not overlap, even
    // though their spans do.
    let fx = Fixture::new();
    let data = pattern(128, 90);
    let mem = fx.buffer_from(0, &data);
    let region = [8, 8, 1];
    let status = api().enqueue_copy_buffer_rect(
        fx.queue,
        mem,
        mem,
        Some(&[0, 0, 0]),
        Some(&[8, 0, 0]),
        Some(&region),
        [16, 0],
        [16, 0],
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_SUCCESS);
    let mut expected = data.clone();
    rect_reference(
        &data,
        [0, 0, 0],
        [16, 0],
        &mut expected,
        [8, 0, 0],
        [16, 0],
        region,
    );
    assert_eq!(fx.read(mem, 0, 128), expected);
    release(mem);
}

#[test]
fn copy_rect_overlap_is_decided_with_the_pitches_passed() {
    // The overlap test uses the pitches of the call: a slice pitch of 0 is region[1] x
    // row_pitch. The CTS's bufferreadwriterect checks overlap with the buffer's own width
    // and height instead (KhronosGroup/OpenCL-CTS#2765), so with some buffer sizes it calls
    // this with rectangles it thinks apart, and fails on CL_MEM_COPY_OVERLAP: the case
    // below, scaled down from its failing call on a 256 GiB host.
    let fx = Fixture::new();
    let data = pattern(16 * 8 * 4, 41);
    let mem = fx.buffer_from(0, &data);
    let region = [4, 2, 2];
    let copy = |slice_pitch: usize| {
        api().enqueue_copy_buffer_rect(
            fx.queue,
            mem,
            mem,
            Some(&[0, 4, 0]),
            Some(&[0, 0, 1]),
            Some(&region),
            [16, slice_pitch],
            [16, slice_pitch],
            Waits::NONE,
            None,
        )
    };
    // Slice pitch 0 = 2 x 16: source rows at 64, 80, 96, 112; destination rows at 32, 48,
    // 64, 80.
    assert_eq!(copy(0), CL_MEM_COPY_OVERLAP);
    // The buffer's own layout (16 x 8 per slice): source rows at 64, 80, 192, 208;
    // destination rows at 128, 144, 256, 272.
    assert_eq!(copy(128), CL_SUCCESS);
    let mut expected = data.clone();
    for (z, y, x) in (0..2).flat_map(|z| (0..2).flat_map(move |y| (0..4).map(move |x| (z, y, x)))) {
        expected[(1 + z) * 128 + y * 16 + x] = data[z * 128 + (4 + y) * 16 + x];
    }
    assert_eq!(fx.read(mem, 0, 512), expected);
    release(mem);
}

#[test]
fn copy_rect_between_overlapping_sub_buffers_is_mem_copy_overlap() {
    // "... or if src_buffer and dst_buffer are different sub-buffers of the same associated
    // buffer object and they overlap."
    let fx = Fixture::new();
    let align = base_align_bytes();
    let parent = fx.buffer(0, 4 * align);
    let a = api().create_sub_buffer(parent, 0, 0, 2 * align).unwrap();
    let b = api()
        .create_sub_buffer(parent, 0, align, 2 * align)
        .unwrap();
    // a's rectangle at (0, align / 16) with row pitch 16 starts at byte `align` of the
    // parent, where b's rectangle at the origin starts.
    let status = api().enqueue_copy_buffer_rect(
        fx.queue,
        a,
        b,
        Some(&[0, align / 16, 0]),
        Some(&[0, 0, 0]),
        Some(&[16, 4, 1]),
        [16, 0],
        [16, 0],
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_MEM_COPY_OVERLAP);
    release(a);
    release(b);
    release(parent);
}

// clEnqueueFillBuffer

#[test]
fn fill_writes_every_pattern_size_at_offsets() {
    let fx = Fixture::new();
    let mut size = 1;
    while size <= 128 {
        let initial = vec![0xee; 8 * size + 3];
        let mem = fx.buffer_from(0, &initial);
        let fill = pattern(size, size as u8);
        let mut event = null_mut();
        let status = api().enqueue_fill_buffer(
            fx.queue,
            mem,
            Some(&fill),
            size,
            2 * size,
            4 * size,
            Waits::NONE,
            Some(&mut event),
        );
        assert_eq!(status, CL_SUCCESS, "pattern size {size}");
        assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
        release_event(event);
        let mut expected = initial.clone();
        for chunk in expected[2 * size..6 * size].chunks_exact_mut(size) {
            chunk.copy_from_slice(&fill);
        }
        assert_eq!(
            fx.read(mem, 0, initial.len()),
            expected,
            "pattern size {size}"
        );
        release(mem);
        size *= 2;
    }
}

#[test]
fn fill_pattern_may_be_reused_once_the_call_returns() {
    // "The memory associated with pattern can be reused or freed after the function
    // returns."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let gate = api().create_user_event(fx.context).unwrap();
    let mut fill = vec![1u8, 2, 3, 4];
    let status = api().enqueue_fill_buffer(
        fx.queue,
        mem,
        Some(&fill),
        4,
        0,
        64,
        Waits::on(&[gate]),
        None,
    );
    assert_eq!(status, CL_SUCCESS);
    fill.fill(0xff);
    drop(fill);
    assert_eq!(api().set_user_event_status(gate, CL_COMPLETE), CL_SUCCESS);
    assert_eq!(fx.read(mem, 0, 64), [1, 2, 3, 4].repeat(16));
    release_event(gate);
    release(mem);
}

#[test]
fn fill_pattern_size_not_in_the_list_is_invalid_value() {
    // "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is not
    // one of {1, 2, 4, 8, 16, 32, 64, 128}."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 4096);
    let fill = vec![0u8; 512];
    for size in [0, 3, 5, 6, 12, 24, 100, 256, 512] {
        let status =
            api().enqueue_fill_buffer(fx.queue, mem, Some(&fill), size, 0, 0, Waits::NONE, None);
        let status_sized = api().enqueue_fill_buffer(
            fx.queue,
            mem,
            Some(&fill),
            size,
            0,
            size * 4,
            Waits::NONE,
            None,
        );
        assert_eq!(
            [status, status_sized],
            [CL_INVALID_VALUE; 2],
            "pattern size {size}"
        );
    }
    let status = api().enqueue_fill_buffer(fx.queue, mem, None, 4, 0, 64, Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE, "NULL pattern");
    release(mem);
}

#[test]
fn fill_offset_or_size_not_a_multiple_of_the_pattern_is_invalid_value() {
    // "CL_INVALID_VALUE if offset and size are not a multiple of pattern_size."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 1024);
    let fill = [7u8; 16];
    for (pattern_size, offset, size) in
        [(4, 2, 16), (4, 0, 18), (16, 8, 64), (16, 0, 24), (2, 1, 2)]
    {
        let status = api().enqueue_fill_buffer(
            fx.queue,
            mem,
            Some(&fill),
            pattern_size,
            offset,
            size,
            Waits::NONE,
            None,
        );
        assert_eq!(
            status, CL_INVALID_VALUE,
            "pattern {pattern_size} at {offset} for {size}"
        );
    }
    release(mem);
}

#[test]
fn fill_out_of_bounds_is_invalid_value() {
    // "CL_INVALID_VALUE if offset or offset + size require accessing elements outside the
    // buffer buffer object respectively."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let fill = [7u8; 8];
    for (offset, size) in [(0, 72), (64, 8), (56, 16), (128, 8)] {
        let status = api().enqueue_fill_buffer(
            fx.queue,
            mem,
            Some(&fill),
            8,
            offset,
            size,
            Waits::NONE,
            None,
        );
        assert_eq!(status, CL_INVALID_VALUE, "{offset} + {size}");
    }
    release(mem);
}

// clEnqueueMapBuffer / clEnqueueUnmapMemObject

#[test]
fn map_count_follows_maps_and_unmaps() {
    // "clEnqueueMapBuffer and clEnqueueMapImage increment the mapped count of the memory
    // object. ... Multiple calls to clEnqueueMapBuffer or clEnqueueMapImage on the same
    // memory object will increment this mapped count by appropriate number of calls.
    // clEnqueueUnmapMemObject decrements the mapped count of the memory object."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 256);
    assert_eq!(map_count(mem), 0);
    let map = || {
        let (ptr, status) =
            api().enqueue_map_buffer(fx.queue, mem, true, CL_MAP_READ, 0, 64, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS);
        assert!(!ptr.is_null());
        ptr
    };
    let unmap = |ptr| {
        let status = api().enqueue_unmap_mem_object(fx.queue, mem, ptr, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS);
        fx.finish();
    };
    let first = map();
    assert_eq!(map_count(mem), 1);
    let second = map();
    assert_eq!(map_count(mem), 2);
    unmap(first);
    assert_eq!(map_count(mem), 1);
    unmap(second);
    assert_eq!(map_count(mem), 0);
    release(mem);
}

#[test]
fn map_read_returns_the_buffer_contents() {
    let fx = Fixture::new();
    let data = pattern(512, 61);
    let mem = fx.buffer_from(0, &data);
    let (ptr, status) = api().enqueue_map_buffer(
        fx.queue,
        mem,
        true,
        CL_MAP_READ,
        100,
        200,
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_SUCCESS);
    // SAFETY: a completed map of 200 bytes; the buffer is not written while it is mapped.
    let mapped = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), 200) }.to_vec();
    assert_eq!(mapped, data[100..300]);
    assert_eq!(
        api().enqueue_unmap_mem_object(fx.queue, mem, ptr, Waits::NONE, None),
        CL_SUCCESS
    );
    fx.finish();
    release(mem);
}

#[test]
fn data_written_through_a_map_is_read_back_after_unmap() {
    let fx = Fixture::new();
    let mem = fx.buffer(0, 256);
    for flags in [
        CL_MAP_WRITE,
        CL_MAP_WRITE_INVALIDATE_REGION,
        CL_MAP_READ | CL_MAP_WRITE,
    ] {
        let data = pattern(128, flags as u8);
        let (ptr, status) =
            api().enqueue_map_buffer(fx.queue, mem, true, flags, 64, 128, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS, "map flags {flags:#x}");
        // SAFETY: a completed map for writing of 128 bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr.cast::<u8>(), 128) };
        let mut unmapped = null_mut();
        let status =
            api().enqueue_unmap_mem_object(fx.queue, mem, ptr, Waits::NONE, Some(&mut unmapped));
        assert_eq!(status, CL_SUCCESS);
        assert_eq!(api().wait_for_events(&[unmapped]), CL_SUCCESS);
        release_event(unmapped);
        assert_eq!(fx.read(mem, 64, 128), data, "map flags {flags:#x}");
    }
    release(mem);
}

#[test]
fn non_blocking_map_is_usable_once_its_event_completes() {
    // "If blocking_map is CL_FALSE ... the pointer to the mapped region returned by
    // clEnqueueMapBuffer cannot be used until the map command has completed."
    let fx = Fixture::new();
    let data = pattern(64, 5);
    let mem = fx.buffer_from(0, &data);
    let mut mapped = null_mut();
    let (ptr, status) = api().enqueue_map_buffer(
        fx.queue,
        mem,
        false,
        CL_MAP_READ,
        0,
        64,
        Waits::NONE,
        Some(&mut mapped),
    );
    assert_eq!(status, CL_SUCCESS);
    assert!(!ptr.is_null());
    assert_eq!(api().wait_for_events(&[mapped]), CL_SUCCESS);
    assert_eq!(
        api().event_scalar::<cl_command_type>(mapped, CL_EVENT_COMMAND_TYPE),
        CL_COMMAND_MAP_BUFFER
    );
    // SAFETY: the map has completed.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), 64) }.to_vec();
    assert_eq!(bytes, data);
    release_event(mapped);
    assert_eq!(
        api().enqueue_unmap_mem_object(fx.queue, mem, ptr, Waits::NONE, None),
        CL_SUCCESS
    );
    fx.finish();
    release(mem);
}

#[test]
fn map_of_a_sub_buffer_maps_the_parent_bytes() {
    let fx = Fixture::new();
    let align = base_align_bytes();
    let data = pattern(4 * align, 12);
    let parent = fx.buffer_from(0, &data);
    let sub = api().create_sub_buffer(parent, 0, align, align).unwrap();
    let (ptr, status) =
        api().enqueue_map_buffer(fx.queue, sub, true, CL_MAP_READ, 16, 32, Waits::NONE, None);
    assert_eq!(status, CL_SUCCESS);
    // SAFETY: a completed map of 32 bytes.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), 32) }.to_vec();
    assert_eq!(bytes, data[align + 16..align + 48]);
    assert_eq!(map_count(sub), 1);
    assert_eq!(
        api().enqueue_unmap_mem_object(fx.queue, sub, ptr, Waits::NONE, None),
        CL_SUCCESS
    );
    fx.finish();
    release(sub);
    release(parent);
}

#[test]
fn unmap_of_a_pointer_not_mapped_is_invalid_value() {
    // "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by clEnqueueMapBuffer
    // or clEnqueueMapImage for memobj."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 256);
    let other = fx.buffer(0, 256);
    let mut host = [0u8; 16];
    let unmap = |mem, ptr| api().enqueue_unmap_mem_object(fx.queue, mem, ptr, Waits::NONE, None);
    // Never mapped.
    assert_eq!(unmap(mem, host.as_mut_ptr().cast()), CL_INVALID_VALUE);
    assert_eq!(unmap(mem, null_mut()), CL_INVALID_VALUE);
    // Mapped from another buffer.
    let (ptr, status) =
        api().enqueue_map_buffer(fx.queue, other, true, CL_MAP_READ, 0, 16, Waits::NONE, None);
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(unmap(mem, ptr), CL_INVALID_VALUE);
    // Already unmapped.
    assert_eq!(unmap(other, ptr), CL_SUCCESS);
    fx.finish();
    assert_eq!(unmap(other, ptr), CL_INVALID_VALUE);
    release(mem);
    release(other);
}

#[test]
fn write_invalidate_with_read_or_write_is_invalid_value() {
    // CL_MAP_WRITE_INVALIDATE_REGION: "CL_MAP_READ or CL_MAP_WRITE and
    // CL_MAP_WRITE_INVALIDATE_REGION are mutually exclusive." "CL_INVALID_VALUE if ... values
    // specified in map_flags are not valid."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    for flags in [
        CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ,
        CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_WRITE,
        CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ | CL_MAP_WRITE,
        1 << 3,
        1 << 10,
    ] {
        let (ptr, status) =
            api().enqueue_map_buffer(fx.queue, mem, true, flags, 0, 16, Waits::NONE, None);
        assert!(ptr.is_null());
        assert_eq!(status, CL_INVALID_VALUE, "map flags {flags:#x}");
    }
    assert_eq!(map_count(mem), 0);
    release(mem);
}

#[test]
fn map_out_of_bounds_or_of_size_zero_is_invalid_value() {
    // "CL_INVALID_VALUE if region being mapped given by (offset, size) is out of bounds or
    // if size is 0".
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    for (offset, size) in [(0, 0), (0, 65), (64, 1), (60, 8), (usize::MAX, 2)] {
        let (ptr, status) = api().enqueue_map_buffer(
            fx.queue,
            mem,
            true,
            CL_MAP_READ,
            offset,
            size,
            Waits::NONE,
            None,
        );
        assert!(ptr.is_null());
        assert_eq!(status, CL_INVALID_VALUE, "{offset} + {size}");
    }
    assert_eq!(map_count(mem), 0);
    release(mem);
}

// clEnqueueMigrateMemObjects

#[test]
fn migrate_with_each_flag_combination_succeeds() {
    let fx = Fixture::new();
    let data = pattern(128, 70);
    let a = fx.buffer_from(0, &data);
    let b = fx.buffer_from(0, &data);
    for flags in [0, CL_MIGRATE_MEM_OBJECT_HOST] {
        let mut event = null_mut();
        let status = api().enqueue_migrate_mem_objects(
            fx.queue,
            2,
            Some(&[a, b]),
            flags,
            Waits::NONE,
            Some(&mut event),
        );
        assert_eq!(status, CL_SUCCESS, "flags {flags:#x}");
        assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
        assert_eq!(
            api().event_scalar::<cl_command_type>(event, CL_EVENT_COMMAND_TYPE),
            CL_COMMAND_MIGRATE_MEM_OBJECTS
        );
        release_event(event);
        // A migration that keeps the contents keeps them.
        assert_eq!(fx.read(a, 0, 128), data);
        assert_eq!(fx.read(b, 0, 128), data);
    }
    for flags in [
        CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
        CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
    ] {
        let status =
            api().enqueue_migrate_mem_objects(fx.queue, 1, Some(&[a]), flags, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS, "flags {flags:#x}");
    }
    fx.finish();
    release(a);
    release(b);
}

#[test]
fn migrate_with_an_undefined_flag_is_invalid_value() {
    // "CL_INVALID_VALUE if flags is not 0 or is not any of the values described in the table
    // above."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    for flags in [1 << 2, 1 << 8, CL_MIGRATE_MEM_OBJECT_HOST | 1 << 5] {
        let status =
            api().enqueue_migrate_mem_objects(fx.queue, 1, Some(&[mem]), flags, Waits::NONE, None);
        assert_eq!(status, CL_INVALID_VALUE, "flags {flags:#x}");
    }
    release(mem);
}

#[test]
fn migrate_with_no_objects_is_invalid_value() {
    // "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let status = api().enqueue_migrate_mem_objects(fx.queue, 0, Some(&[mem]), 0, Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE);
    let status = api().enqueue_migrate_mem_objects(fx.queue, 1, None, 0, Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE);
    let status = api().enqueue_migrate_mem_objects(fx.queue, 0, None, 0, Waits::NONE, None);
    assert_eq!(status, CL_INVALID_VALUE);
    release(mem);
}

#[test]
fn migrate_of_a_non_mem_object_is_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if any of the memory objects in mem_objects is not a valid
    // memory object."
    let fx = Fixture::new();
    let mem = fx.buffer(0, 64);
    let status = api().enqueue_migrate_mem_objects(
        fx.queue,
        2,
        Some(&[mem, fx.queue]),
        0,
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_INVALID_MEM_OBJECT);
    let status = api().enqueue_migrate_mem_objects(
        fx.queue,
        2,
        Some(&[mem, null_mut()]),
        0,
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_INVALID_MEM_OBJECT);
    release(mem);
}

// Objects of the wrong context or type

#[test]
fn buffer_of_another_context_is_invalid_context() {
    // "CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not the
    // same" (every buffer command; for copies "command_queue, src_buffer and dst_buffer").
    let fx = Fixture::new();
    let other = Fixture::new();
    let mine = fx.buffer(0, 256);
    let theirs = other.buffer(0, 256);
    let q = fx.queue;
    let mut host = vec![0u8; 256];
    let (origin, region) = ([0, 0, 0], [4, 4, 1]);
    let api = api();
    let mut statuses = vec![
        api.read_buffer(q, theirs, 0, &mut host[..16], Waits::NONE, None),
        api.write_buffer(q, theirs, 0, &host[..16], Waits::NONE, None),
        api.enqueue_copy_buffer(q, theirs, mine, 0, 0, 16, Waits::NONE, None),
        api.enqueue_copy_buffer(q, mine, theirs, 0, 0, 16, Waits::NONE, None),
        api.enqueue_fill_buffer(q, theirs, Some(&[1]), 1, 0, 16, Waits::NONE, None),
        api.enqueue_map_buffer(q, theirs, true, CL_MAP_READ, 0, 16, Waits::NONE, None)
            .1,
        api.enqueue_migrate_mem_objects(q, 2, Some(&[mine, theirs]), 0, Waits::NONE, None),
        api.enqueue_copy_buffer_rect(
            q,
            theirs,
            mine,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            Waits::NONE,
            None,
        ),
        api.enqueue_copy_buffer_rect(
            q,
            mine,
            theirs,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            Waits::NONE,
            None,
        ),
    ];
    // SAFETY: blocking; the 4 x 4 host rectangle lies inside `host`.
    statuses.push(unsafe {
        api.enqueue_read_buffer_rect_raw(
            q,
            theirs,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            host.as_mut_ptr().cast(),
            Waits::NONE,
            None,
        )
    });
    // SAFETY: as above.
    statuses.push(unsafe {
        api.enqueue_write_buffer_rect_raw(
            q,
            theirs,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            host.as_ptr().cast(),
            Waits::NONE,
            None,
        )
    });
    // A pointer mapped through the buffer's own queue, unmapped through the other context's.
    let (ptr, status) = api.enqueue_map_buffer(
        other.queue,
        theirs,
        true,
        CL_MAP_READ,
        0,
        16,
        Waits::NONE,
        None,
    );
    assert_eq!(status, CL_SUCCESS);
    statuses.push(api.enqueue_unmap_mem_object(q, theirs, ptr, Waits::NONE, None));
    assert_eq!(statuses, vec![CL_INVALID_CONTEXT; statuses.len()]);
    assert_eq!(
        api.enqueue_unmap_mem_object(other.queue, theirs, ptr, Waits::NONE, None),
        CL_SUCCESS
    );
    other.finish();
    release(mine);
    release(theirs);
}

#[test]
fn non_mem_object_in_a_buffer_command_is_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object" (each command).
    let fx = Fixture::new();
    let mem = fx.buffer(0, 256);
    let (q, bad) = (fx.queue, fx.context);
    let mut host = vec![0u8; 256];
    let (origin, region) = ([0, 0, 0], [4, 4, 1]);
    let api = api();
    let mut statuses = vec![
        api.read_buffer(q, bad, 0, &mut host[..16], Waits::NONE, None),
        api.write_buffer(q, bad, 0, &host[..16], Waits::NONE, None),
        api.enqueue_copy_buffer(q, bad, mem, 0, 0, 16, Waits::NONE, None),
        api.enqueue_copy_buffer(q, mem, bad, 0, 0, 16, Waits::NONE, None),
        api.enqueue_fill_buffer(q, bad, Some(&[1]), 1, 0, 16, Waits::NONE, None),
        api.enqueue_map_buffer(q, bad, true, CL_MAP_READ, 0, 16, Waits::NONE, None)
            .1,
        api.enqueue_unmap_mem_object(q, bad, host.as_mut_ptr().cast(), Waits::NONE, None),
        api.enqueue_copy_buffer_rect(
            q,
            bad,
            mem,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            Waits::NONE,
            None,
        ),
        api.enqueue_copy_buffer_rect(
            q,
            mem,
            bad,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            Waits::NONE,
            None,
        ),
    ];
    // SAFETY: blocking; the 4 x 4 host rectangle lies inside `host`.
    statuses.push(unsafe {
        api.enqueue_read_buffer_rect_raw(
            q,
            bad,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            host.as_mut_ptr().cast(),
            Waits::NONE,
            None,
        )
    });
    // SAFETY: as above.
    statuses.push(unsafe {
        api.enqueue_write_buffer_rect_raw(
            q,
            bad,
            true,
            Some(&origin),
            Some(&origin),
            Some(&region),
            [0, 0],
            [0, 0],
            host.as_ptr().cast(),
            Waits::NONE,
            None,
        )
    });
    assert_eq!(statuses, vec![CL_INVALID_MEM_OBJECT; statuses.len()]);
    release(mem);
}
