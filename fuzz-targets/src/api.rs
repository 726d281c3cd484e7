//! The API fuzz target: sequences of OpenCL calls with fuzzed sizes, offsets, pitches and
//! flags, made as a hostile application would make them.
//!
//! The calls go to clift's entry points as Rust functions (the `clift` library, without
//! the loader or any C), because that is where a hostile application comes in: each call's
//! validation lives there, and the runtime below trusts what it validated. The harness
//! itself stays a *correct* application in everything the spec makes the application's
//! duty — every host pointer it passes holds the bytes the call may touch, buffers made
//! with `CL_MEM_USE_HOST_PTR` outlive none of their host memory, the kernels it launches
//! stay inside the buffers it gives them — so that any crash, hang or sanitizer report is
//! clift's. Each input is a program of operations read from its bytes ([`Op`]).
//!
//! Sizes that the spec allows but that would only make a run slow (a valid 1 GiB buffer
//! filled byte by byte, 2^40 work-items) are folded down; sizes past the device's limits and
//! sizes near `usize::MAX` are kept, since refusing them is what is tested.

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

use clift::api as cl;
use khronos_headers::*;

/// The host memory a run lends to the calls (every host pointer points into it).
const ARENA: usize = 1 << 18;
/// The most operations one input runs.
const MAX_OPS: usize = 48;
/// Valid buffer sizes above this are folded down (a run must stay fast).
const BIG: usize = 1 << 20;
/// The most work-items one launch may have before its range is folded down.
const MAX_ITEMS: usize = 1 << 14;

/// The kernels the harness launches. `fill` stays inside `out` whatever its range, given
/// `n` (the harness sets it to `out`'s size in `uint`s) and `nl` (`l`'s size in `uint`s);
/// `sink` touches no memory, so any arguments that the API accepts are safe to run with.
const PROGRAM: &str = r#"
kernel void fill(global uint* out, uint n, local uint* l, uint nl) {
    size_t g = (get_global_id(2) - get_global_offset(2)) * get_global_size(1) * get_global_size(0)
        + (get_global_id(1) - get_global_offset(1)) * get_global_size(0)
        + (get_global_id(0) - get_global_offset(0));
    size_t lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2));
    if (nl > 0) l[lid % nl] = (uint)g;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (g < n) out[g] = (uint)g ^ (nl > 0 ? l[lid % nl] : 0u);
}
kernel void sink(local uint* a, global uint* b, local float4* c, constant int* d, uint e,
                 float4 f, read_only image2d_t g, sampler_t h, global char* i) {
}
kernel void image_copy(read_only image2d_t src, write_only image2d_t dst, int w, int h) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    if (p.x < w && p.y < h) write_imagef(dst, p, read_imagef(src, CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST, p));
}
"#;

/// Raw handles shared by every run (made once per process).
struct Setup {
    context: cl_context,
    queue: cl_command_queue,
    /// `fill`, `sink`, `image_copy`.
    kernels: [cl_kernel; 3],
    max_alloc: usize,
}

// SAFETY: OpenCL handles may be used from any thread (the spec's thread-safety rule for
// every entry point but clSetKernelArg, which the harness calls from one thread at a time:
// `run` holds `RUN` while it works).
unsafe impl Send for Setup {}
// SAFETY: as above.
unsafe impl Sync for Setup {}

static SETUP: OnceLock<Setup> = OnceLock::new();
/// One run at a time (kernel arguments are shared state).
static RUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn setup() -> &'static Setup {
    SETUP.get_or_init(|| {
        // SAFETY: every pointer passed is valid for the call (locals of this function).
        unsafe {
            let mut platform: cl_platform_id = null_mut();
            assert_eq!(
                cl::clGetPlatformIDs(1, &mut platform, null_mut()),
                CL_SUCCESS
            );
            let mut device: cl_device_id = null_mut();
            let status =
                cl::clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, null_mut());
            assert_eq!(status, CL_SUCCESS);
            let mut err = 0;
            let context = cl::clCreateContext(null(), 1, &device, None, null_mut(), &mut err);
            assert_eq!(err, CL_SUCCESS);
            let queue = cl::clCreateCommandQueue(context, device, 0, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let mut source = PROGRAM.as_ptr().cast();
            let len = PROGRAM.len();
            let program = cl::clCreateProgramWithSource(context, 1, &mut source, &len, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let status = cl::clBuildProgram(program, 0, null(), null(), None, null_mut());
            assert_eq!(status, CL_SUCCESS, "the harness's program does not build");
            let kernel = |name: &std::ffi::CStr| {
                let mut err = 0;
                let k = cl::clCreateKernel(program, name.as_ptr(), &mut err);
                assert_eq!(err, CL_SUCCESS);
                k
            };
            let kernels = [kernel(c"fill"), kernel(c"sink"), kernel(c"image_copy")];
            let mut max_alloc: u64 = 0;
            let status = cl::clGetDeviceInfo(
                device,
                CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                size_of::<u64>(),
                (&raw mut max_alloc).cast(),
                null_mut(),
            );
            assert_eq!(status, CL_SUCCESS);
            Setup {
                context,
                queue,
                kernels,
                max_alloc: max_alloc as usize,
            }
        }
    })
}

/// Reads the fuzzer's bytes as the values of a run; past the end, everything reads 0.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// A size or offset: small values most often, then the edges where arithmetic wraps.
    fn size(&mut self) -> usize {
        match self.u8() % 16 {
            0..=6 => usize::from(self.u8()),
            7..=9 => self.u32() as usize % 4096,
            10 => self.u32() as usize,
            11 => usize::MAX - usize::from(self.u8()),
            12 => (1usize << (self.u8() % 64)).wrapping_add(usize::from(self.u8() % 3)),
            13 => (1usize << 63) + usize::from(self.u8()),
            14 => self.u64() as usize,
            _ => 0,
        }
    }

    /// Memory flags: mostly valid combinations, sometimes raw bits.
    fn mem_flags(&mut self) -> cl_mem_flags {
        const BITS: [cl_mem_flags; 9] = [
            CL_MEM_READ_WRITE,
            CL_MEM_WRITE_ONLY,
            CL_MEM_READ_ONLY,
            CL_MEM_USE_HOST_PTR,
            CL_MEM_ALLOC_HOST_PTR,
            CL_MEM_COPY_HOST_PTR,
            CL_MEM_HOST_WRITE_ONLY,
            CL_MEM_HOST_READ_ONLY,
            CL_MEM_HOST_NO_ACCESS,
        ];
        let pick = self.u8();
        if pick == 255 {
            return self.u64();
        }
        let mut flags = 0;
        for (i, bit) in BITS.iter().enumerate() {
            if pick & (1 << (i % 8)) != 0 && (i < 8 || self.bool()) {
                flags |= bit;
            }
        }
        // Most runs want plain buffers: drop the host-access bits most of the time.
        if !pick.is_multiple_of(4) {
            flags &= !(CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS);
        }
        flags
    }

    fn triple(&mut self) -> [usize; 3] {
        [self.size(), self.size(), self.size()]
    }
}

/// What one run holds: its memory objects and the host memory it lends.
struct Run {
    setup: &'static Setup,
    arena: Vec<u8>,
    /// Argument values of any size (all zeros: never a dangling handle).
    zeros: Vec<u8>,
    mems: Vec<cl_mem>,
}

/// The operations of a run (the first byte of each picks one).
#[derive(Clone, Copy, Debug)]
enum Op {
    CreateBuffer,
    CreateSubBuffer,
    ReadWrite,
    ReadWriteRect,
    Copy,
    CopyRect,
    Fill,
    Map,
    CreateImage,
    ReadWriteImage,
    CopyImage,
    SetArg,
    LaunchSink,
    LaunchFill,
    Release,
    Finish,
}

const OPS: [Op; 16] = [
    Op::CreateBuffer,
    Op::CreateSubBuffer,
    Op::ReadWrite,
    Op::ReadWriteRect,
    Op::Copy,
    Op::CopyRect,
    Op::Fill,
    Op::Map,
    Op::CreateImage,
    Op::ReadWriteImage,
    Op::CopyImage,
    Op::SetArg,
    Op::LaunchSink,
    Op::LaunchFill,
    Op::Release,
    Op::Finish,
];

/// Runs the operations that `data` encodes.
pub fn run(data: &[u8]) {
    let setup = setup();
    let _one = RUN.lock().unwrap_or_else(|e| e.into_inner());
    let mut run = Run {
        setup,
        arena: vec![0x5a; ARENA],
        zeros: vec![0; ARENA],
        mems: Vec::new(),
    };
    let mut bytes = Bytes { data, at: 0 };
    for _ in 0..MAX_OPS {
        if bytes.done() {
            break;
        }
        let op = OPS[usize::from(bytes.u8()) % OPS.len()];
        // SAFETY: `run` keeps every host pointer it passes valid (module docs).
        unsafe { run.op(op, &mut bytes) };
    }
    // SAFETY: handles made by this run; the queue drains before the arena goes.
    unsafe {
        cl::clFinish(setup.queue);
        for mem in run.mems.drain(..) {
            cl::clReleaseMemObject(mem);
        }
    }
}

/// The host bytes a rectangle of `region` at `origin` spans with these pitches, or `None`
/// when that does not fit in `usize`. Pitches are raised to their smallest valid values
/// first, so the figure bounds what a call that validates its pitches may touch.
/// The bytes an image read or write may touch on the host side, for any image type: the
/// rectangle's extent, and for a 1D image array (whose layers, `region[1]`, lie
/// `slice_pitch` apart: 5.3.3) the extent with rows `slice` apart.
fn image_host_extent(region: [usize; 3], row: usize, slice: usize) -> Option<usize> {
    let rect = rect_extent([0; 3], region, row, slice)?;
    let layers = rect_extent([0; 3], region, row.max(slice), 0)?;
    Some(rect.max(layers))
}

fn rect_extent(origin: [usize; 3], region: [usize; 3], row: usize, slice: usize) -> Option<usize> {
    let row = row.max(region[0]);
    let slice = slice.max(row.checked_mul(region[1])?);
    let start = origin[2]
        .checked_mul(slice)?
        .checked_add(origin[1].checked_mul(row)?)?
        .checked_add(origin[0])?;
    let last = region[2]
        .saturating_sub(1)
        .checked_mul(slice)?
        .checked_add(region[1].saturating_sub(1).checked_mul(row)?)?
        .checked_add(region[0])?;
    start.checked_add(last)
}

impl Run {
    /// A memory object of the run (or, now and then, NULL or a stale value).
    fn mem(&self, bytes: &mut Bytes) -> cl_mem {
        let pick = usize::from(bytes.u8());
        if self.mems.is_empty() || pick == 255 {
            return null_mut();
        }
        self.mems[pick % self.mems.len()]
    }

    /// The arena when `len` bytes fit in it, else NULL (the call must then refuse).
    fn host(&mut self, len: Option<usize>) -> *mut c_void {
        match len {
            Some(len) if len <= ARENA => self.arena.as_mut_ptr().cast(),
            _ => null_mut(),
        }
    }

    /// A valid size above [`BIG`] folded down; other sizes as they are.
    fn fold(&self, size: usize) -> usize {
        if size > BIG && size <= self.setup.max_alloc {
            size % BIG
        } else {
            size
        }
    }

    fn keep(&mut self, mem: cl_mem, err: cl_int) {
        if err == CL_SUCCESS {
            assert!(!mem.is_null(), "CL_SUCCESS with a NULL memory object");
            self.mems.push(mem);
        } else {
            assert!(mem.is_null(), "an error ({err}) with a memory object");
        }
    }

    /// # Safety
    /// The run's invariants (module docs).
    unsafe fn op(&mut self, op: Op, b: &mut Bytes) {
        let q = self.setup.queue;
        let ctx = self.setup.context;
        let mut err = 0;
        // SAFETY: every host pointer below is the arena, passed only when the bytes the
        // call may touch fit in it, or NULL; every handle is the setup's or one of the
        // run's (released only at the end, after clFinish) or NULL.
        unsafe {
            match op {
                Op::CreateBuffer => {
                    let flags = b.mem_flags();
                    let size = self.fold(b.size());
                    let wants = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
                    let host = if wants {
                        self.host(Some(size))
                    } else {
                        null_mut()
                    };
                    let mem = cl::clCreateBuffer(ctx, flags, size, host, &mut err);
                    self.keep(mem, err);
                }
                Op::CreateSubBuffer => {
                    let parent = self.mem(b);
                    let flags = b.mem_flags();
                    let region = cl_buffer_region {
                        origin: b.size(),
                        size: b.size(),
                    };
                    let kind = if b.u8() == 0 {
                        b.u32()
                    } else {
                        CL_BUFFER_CREATE_TYPE_REGION
                    };
                    let info = if b.u8() == 0 {
                        null()
                    } else {
                        (&raw const region).cast()
                    };
                    let mem = cl::clCreateSubBuffer(parent, flags, kind, info, &mut err);
                    self.keep(mem, err);
                }
                Op::ReadWrite => {
                    let mem = self.mem(b);
                    let (offset, size) = (b.size(), b.size());
                    let host = self.host(Some(size));
                    if b.bool() {
                        cl::clEnqueueReadBuffer(
                            q,
                            mem,
                            CL_TRUE,
                            offset,
                            size,
                            host,
                            0,
                            null(),
                            null_mut(),
                        );
                    } else {
                        cl::clEnqueueWriteBuffer(
                            q,
                            mem,
                            CL_TRUE,
                            offset,
                            size,
                            host,
                            0,
                            null(),
                            null_mut(),
                        );
                    }
                }
                Op::ReadWriteRect => {
                    let mem = self.mem(b);
                    let (origin, host_origin, region) = (b.triple(), b.triple(), b.triple());
                    let (row, slice, host_row, host_slice) =
                        (b.size(), b.size(), b.size(), b.size());
                    let host = self.host(rect_extent(host_origin, region, host_row, host_slice));
                    if b.bool() {
                        cl::clEnqueueReadBufferRect(
                            q,
                            mem,
                            CL_TRUE,
                            origin.as_ptr(),
                            host_origin.as_ptr(),
                            region.as_ptr(),
                            row,
                            slice,
                            host_row,
                            host_slice,
                            host,
                            0,
                            null(),
                            null_mut(),
                        );
                    } else {
                        cl::clEnqueueWriteBufferRect(
                            q,
                            mem,
                            CL_TRUE,
                            origin.as_ptr(),
                            host_origin.as_ptr(),
                            region.as_ptr(),
                            row,
                            slice,
                            host_row,
                            host_slice,
                            host,
                            0,
                            null(),
                            null_mut(),
                        );
                    }
                }
                Op::Copy => {
                    let (src, dst) = (self.mem(b), self.mem(b));
                    let (so, d_o, size) = (b.size(), b.size(), self.fold(b.size()));
                    cl::clEnqueueCopyBuffer(q, src, dst, so, d_o, size, 0, null(), null_mut());
                }
                Op::CopyRect => {
                    let (src, dst) = (self.mem(b), self.mem(b));
                    let (so, d_o, region) = (b.triple(), b.triple(), b.triple());
                    let (sr, ss, dr, ds) = (b.size(), b.size(), b.size(), b.size());
                    cl::clEnqueueCopyBufferRect(
                        q,
                        src,
                        dst,
                        so.as_ptr(),
                        d_o.as_ptr(),
                        region.as_ptr(),
                        sr,
                        ss,
                        dr,
                        ds,
                        0,
                        null(),
                        null_mut(),
                    );
                }
                Op::Fill => {
                    let mem = self.mem(b);
                    let pattern_size = b.size();
                    let pattern = self.host(Some(pattern_size)).cast_const();
                    let (offset, size) = (b.size(), self.fold(b.size()));
                    cl::clEnqueueFillBuffer(
                        q,
                        mem,
                        pattern,
                        pattern_size,
                        offset,
                        size,
                        0,
                        null(),
                        null_mut(),
                    );
                }
                Op::Map => {
                    let mem = self.mem(b);
                    let flags = match b.u8() % 4 {
                        0 => CL_MAP_READ,
                        1 => CL_MAP_WRITE,
                        2 => CL_MAP_WRITE_INVALIDATE_REGION,
                        _ => b.u64(),
                    };
                    let (offset, size) = (b.size(), b.size());
                    let ptr = cl::clEnqueueMapBuffer(
                        q,
                        mem,
                        CL_TRUE,
                        flags,
                        offset,
                        size,
                        0,
                        null(),
                        null_mut(),
                        &mut err,
                    );
                    if err == CL_SUCCESS {
                        assert!(!ptr.is_null(), "a successful map returned NULL");
                        if size > 0 {
                            // The mapped region is the application's to touch.
                            let p = ptr.cast::<u8>();
                            p.write_volatile(p.read_volatile());
                            let last = p.add(size - 1);
                            last.write_volatile(last.read_volatile());
                        }
                        let status =
                            cl::clEnqueueUnmapMemObject(q, mem, ptr, 0, null(), null_mut());
                        assert_eq!(status, CL_SUCCESS, "unmapping a mapped pointer failed");
                    }
                }
                Op::CreateImage => self.create_image(b),
                Op::ReadWriteImage => {
                    let mem = self.mem(b);
                    let (origin, region) = (b.triple(), b.triple());
                    let (row, slice) = (b.size(), b.size());
                    // 16 bytes: the largest element of any format.
                    let bytes_region = [region[0].saturating_mul(16), region[1], region[2]];
                    let host = self.host(image_host_extent(bytes_region, row, slice));
                    if b.bool() {
                        cl::clEnqueueReadImage(
                            q,
                            mem,
                            CL_TRUE,
                            origin.as_ptr(),
                            region.as_ptr(),
                            row,
                            slice,
                            host,
                            0,
                            null(),
                            null_mut(),
                        );
                    } else {
                        cl::clEnqueueWriteImage(
                            q,
                            mem,
                            CL_TRUE,
                            origin.as_ptr(),
                            region.as_ptr(),
                            row,
                            slice,
                            host,
                            0,
                            null(),
                            null_mut(),
                        );
                    }
                }
                Op::CopyImage => {
                    let (src, dst) = (self.mem(b), self.mem(b));
                    let (so, d_o, region) = (b.triple(), b.triple(), b.triple());
                    match b.u8() % 3 {
                        0 => cl::clEnqueueCopyImage(
                            q,
                            src,
                            dst,
                            so.as_ptr(),
                            d_o.as_ptr(),
                            region.as_ptr(),
                            0,
                            null(),
                            null_mut(),
                        ),
                        1 => cl::clEnqueueCopyImageToBuffer(
                            q,
                            src,
                            dst,
                            so.as_ptr(),
                            region.as_ptr(),
                            d_o[0],
                            0,
                            null(),
                            null_mut(),
                        ),
                        _ => cl::clEnqueueCopyBufferToImage(
                            q,
                            src,
                            dst,
                            so[0],
                            d_o.as_ptr(),
                            region.as_ptr(),
                            0,
                            null(),
                            null_mut(),
                        ),
                    };
                }
                Op::SetArg => {
                    // `sink` touches nothing, so whatever it accepts is safe to launch.
                    let kernel = self.setup.kernels[1];
                    let index = u32::from(b.u8() % 12);
                    let size = b.size();
                    let mut handle = self.mem(b);
                    let value: *const c_void = match b.u8() % 3 {
                        0 => null(),
                        // A handle is 8 bytes: any other size reads zeros.
                        1 if size == size_of::<cl_mem>() => (&raw mut handle).cast_const().cast(),
                        // Zeros: read as a handle they are NULL, which an application
                        // may pass (any other bytes would be a dangling handle).
                        _ if size <= ARENA => self.zeros.as_ptr().cast(),
                        _ => null(),
                    };
                    cl::clSetKernelArg(kernel, index, size, value);
                }
                Op::LaunchSink => {
                    let kernel = self.setup.kernels[1];
                    self.launch(kernel, b);
                }
                Op::LaunchFill => self.launch_fill(b),
                Op::Release => {
                    if !self.mems.is_empty() {
                        let at = usize::from(b.u8()) % self.mems.len();
                        cl::clFinish(q);
                        let mem = self.mems.swap_remove(at);
                        assert_eq!(cl::clReleaseMemObject(mem), CL_SUCCESS);
                    }
                }
                Op::Finish => {
                    assert_eq!(cl::clFinish(q), CL_SUCCESS);
                }
            }
        }
    }

    /// `clCreateImage` with a fuzzed format and descriptor.
    ///
    /// # Safety
    /// The run's invariants.
    unsafe fn create_image(&mut self, b: &mut Bytes) {
        const TYPES: [cl_mem_object_type; 6] = [
            CL_MEM_OBJECT_IMAGE2D,
            CL_MEM_OBJECT_IMAGE3D,
            CL_MEM_OBJECT_IMAGE1D,
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            CL_MEM_OBJECT_IMAGE1D_BUFFER,
        ];
        const FORMATS: [(cl_channel_order, cl_channel_type); 6] = [
            (CL_RGBA, CL_UNORM_INT8),
            (CL_RGBA, CL_FLOAT),
            (CL_R, CL_UNSIGNED_INT32),
            (CL_BGRA, CL_UNORM_INT8),
            (CL_RG, CL_HALF_FLOAT),
            (CL_INTENSITY, CL_SNORM_INT16),
        ];
        let flags = b.mem_flags();
        let pick = b.u8();
        let image_type = if pick == 255 {
            b.u32()
        } else {
            TYPES[usize::from(pick) % TYPES.len()]
        };
        let pick = b.u8();
        let (order, data_type) = if pick == 255 {
            (b.u32(), b.u32())
        } else {
            FORMATS[usize::from(pick) % FORMATS.len()]
        };
        let format = cl_image_format {
            image_channel_order: order,
            image_channel_data_type: data_type,
        };
        // Dimensions: small mostly; large ones stay (the device's limits refuse them).
        let mut dim = || match b.u8() % 8 {
            0 => b.size(),
            _ => usize::from(b.u8() % 64),
        };
        let (width, height, depth, array) = (dim(), dim(), dim(), dim());
        let (row, slice) = (b.size(), b.size());
        let buffer = if image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
            self.mem(b)
        } else {
            null_mut()
        };
        let desc = cl_image_desc {
            image_type,
            image_width: width,
            image_height: height,
            image_depth: depth,
            image_array_size: array,
            image_row_pitch: row,
            image_slice_pitch: slice,
            num_mip_levels: u32::from(b.u8() == 0),
            num_samples: u32::from(b.u8() == 0),
            buffer,
        };
        // The bytes a host pointer must hold, bounded from above: 16-byte elements,
        // every dimension at least 1.
        let rows = height
            .max(1)
            .checked_mul(depth.max(1))
            .and_then(|r| r.checked_mul(array.max(1)));
        let need = width
            .checked_mul(16)
            .map(|w| w.max(row))
            .and_then(|w| rows.and_then(|r| w.checked_mul(r)))
            .map(|n| {
                n.max(
                    slice
                        .saturating_mul(depth.max(1))
                        .saturating_mul(array.max(1)),
                )
            });
        let wants = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
        let host = if wants { self.host(need) } else { null_mut() };
        let desc_ptr = if b.u8() == 0 { null() } else { &raw const desc };
        let mut err = 0;
        // SAFETY: as in `op`.
        let mem = unsafe {
            cl::clCreateImage(self.setup.context, flags, &format, desc_ptr, host, &mut err)
        };
        self.keep(mem, err);
    }

    /// A fuzzed NDRange of `kernel`; valid ranges are folded small enough to run fast.
    ///
    /// # Safety
    /// The run's invariants; `kernel` must stay in bounds for any range.
    unsafe fn launch(&mut self, kernel: cl_kernel, b: &mut Bytes) {
        let dims = match b.u8() % 8 {
            7 => b.u32(),
            d => u32::from(d % 3 + 1),
        };
        let mut global = b.triple();
        let offset = b.triple();
        let local = b.triple();
        // A valid range of more than MAX_ITEMS work-items only costs time: fold it.
        let items = global
            .iter()
            .take(dims.clamp(1, 3) as usize)
            .try_fold(1usize, |n, &g| n.checked_mul(g));
        if items.is_some_and(|n| n > MAX_ITEMS) {
            for g in &mut global {
                *g = (*g % 32).max(1);
            }
        }
        let local_ptr = if b.bool() { null() } else { local.as_ptr() };
        let offset_ptr = if b.bool() { null() } else { offset.as_ptr() };
        // SAFETY: as in `op`.
        unsafe {
            cl::clEnqueueNDRangeKernel(
                self.setup.queue,
                kernel,
                dims,
                offset_ptr,
                global.as_ptr(),
                local_ptr,
                0,
                null(),
                null_mut(),
            );
        }
    }

    /// `fill` on one of the run's buffers with a fuzzed `__local` size and range; its other
    /// arguments are set as a correct application sets them.
    ///
    /// # Safety
    /// The run's invariants.
    unsafe fn launch_fill(&mut self, b: &mut Bytes) {
        let kernel = self.setup.kernels[0];
        let mut out = self.mem(b);
        let local_size = b.size();
        let mut size = 0usize;
        // SAFETY: as in `op`.
        unsafe {
            if out.is_null()
                || cl::clGetMemObjectInfo(
                    out,
                    CL_MEM_SIZE,
                    size_of::<usize>(),
                    (&raw mut size).cast(),
                    null_mut(),
                ) != CL_SUCCESS
            {
                return;
            }
            let n = u32::try_from(size / 4).unwrap_or(u32::MAX);
            let nl = u32::try_from(local_size / 4).unwrap_or(u32::MAX);
            let set = [
                cl::clSetKernelArg(
                    kernel,
                    0,
                    size_of::<cl_mem>(),
                    (&raw mut out).cast_const().cast(),
                ),
                cl::clSetKernelArg(kernel, 1, 4, (&raw const n).cast()),
                cl::clSetKernelArg(kernel, 2, local_size, null()),
                cl::clSetKernelArg(kernel, 3, 4, (&raw const nl).cast()),
            ];
            if set.iter().all(|&s| s == CL_SUCCESS) {
                self.launch(kernel, b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_extents_bound_the_bytes_touched() {
        // 4 rows of 8 bytes, pitch 16, from row 1: the last byte is 16 + 3 * 16 + 8.
        assert_eq!(
            rect_extent([0, 1, 0], [8, 4, 1], 16, 0),
            Some(16 + 3 * 16 + 8)
        );
        // A pitch below the row is raised to the row.
        assert_eq!(rect_extent([0; 3], [8, 2, 1], 1, 0), Some(16));
        assert_eq!(rect_extent([usize::MAX, 0, 0], [1, 1, 1], 0, 0), None);
    }

    #[test]
    fn image_host_extents_cover_1d_array_layers() {
        // 3 layers of 8 bytes, 100 bytes apart: the last layer ends at 2 * 100 + 8.
        assert_eq!(image_host_extent([8, 3, 1], 0, 100), Some(208));
        // A 2D rectangle of 3 rows, pitch 16: the slice pitch does not matter.
        assert_eq!(image_host_extent([8, 3, 1], 16, 0), Some(40));
    }
}
