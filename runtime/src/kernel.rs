//! Kernels: a compiled work-group function, the argument values set so far, and the launch
//! of an NDRange (validation of the work sizes, choice of a local size, the argument block,
//! and the run over every work-group on the device's workers).

use std::sync::{Arc, Weak};

pub use clift_compiler::kernel::{KernelCode, KernelParam, ParamInfo, ParamKind, WorkGroup};
use khronos_headers::*;
use parking_lot::Mutex;

use clift_builtins::safe::{SafeLaunch, SafeObject, space as safe_space};
use clift_compiler::kernel::MAX_ALIGN;

use crate::device::{Device, limits};
use crate::error::{ClResult, fail};
use crate::memory::Mem;
use crate::object::{ClObject, Header, ObjectKind};
use crate::program::Program;

/// A value given by `clSetKernelArg`, checked against its parameter.
pub enum ArgValue {
    /// A buffer, or NULL.
    Buffer(Option<Arc<Mem>>),
    /// `__local` memory of this many bytes.
    Local(usize),
    /// The bytes of a by-value argument.
    Bytes(Vec<u8>),
    /// An image (its kind matches the parameter's).
    Image(Arc<Mem>),
    /// A sampler's bits (`clift_builtins::image::sample`).
    Sampler(u32),
}

/// An argument as the kernel keeps it: memory objects by weak reference.
///
/// A kernel must not keep its argument buffers alive: an application may release a buffer
/// after setting it as an argument and wait for its destructor callback (the Khronos CTS's
/// `retain_mem_object_set_kernel_arg` does). A launch upgrades the references and holds
/// the objects until its command has run; a launch whose object is gone is refused.
pub(crate) enum StoredArg {
    Buffer(Option<Weak<Mem>>),
    Local(usize),
    Bytes(Vec<u8>),
    Image(Weak<Mem>),
    Sampler(u32),
}

impl StoredArg {
    fn new(value: ArgValue) -> StoredArg {
        match value {
            ArgValue::Buffer(mem) => StoredArg::Buffer(mem.as_ref().map(Arc::downgrade)),
            ArgValue::Local(size) => StoredArg::Local(size),
            ArgValue::Bytes(bytes) => StoredArg::Bytes(bytes),
            ArgValue::Image(mem) => StoredArg::Image(Arc::downgrade(&mem)),
            ArgValue::Sampler(bits) => StoredArg::Sampler(bits),
        }
    }

    /// Whether the value is one the parameter of `kind` takes (the C layer reads each value
    /// as its parameter's kind, so only a caller inside the runtime could mismatch them).
    fn suits(&self, kind: &ParamKind) -> bool {
        match (self, kind) {
            (StoredArg::Buffer(_), ParamKind::Buffer { .. })
            | (StoredArg::Local(_), ParamKind::Local)
            | (StoredArg::Image(_), ParamKind::Image(_))
            | (StoredArg::Sampler(_), ParamKind::Sampler) => true,
            (StoredArg::Bytes(bytes), ParamKind::Value { size }) => bytes.len() == *size,
            _ => false,
        }
    }
}

/// A memory object argument that is still alive: "CL_INVALID_KERNEL_ARGS if the kernel
/// argument values have not been specified" — a released object is no value any more
/// (rusticl answers the same).
fn alive(mem: &Weak<Mem>) -> ClResult<Arc<Mem>> {
    match mem.upgrade() {
        Some(mem) if mem.header().api_refs() > 0 => Ok(mem),
        _ => fail(CL_INVALID_KERNEL_ARGS),
    }
}

#[repr(C)]
pub struct Kernel {
    header: Header,
    program: Arc<Program>,
    code: Arc<KernelCode>,
    /// What launches hold of the code (see [`LaunchCode`]).
    launch_code: Arc<LaunchCode>,
    /// The arguments, and what a launch remembers, under one lock: a launch takes it once
    /// for its sizes and its arguments ([`Kernel::prepare_ndrange_into`]; two locks were
    /// two locked instructions more per launch).
    args: Mutex<Launching>,
}

/// What [`Kernel`]'s lock guards.
pub struct Launching {
    args: packed::Args,
    /// The arguments' snapshot the last launch took, while a launch holds it (see
    /// [`Snapshot`]); `clSetKernelArg` lets go of it.
    snapshot: Weak<SharedSnapshot>,
    /// The same snapshot held by the kernel itself when it holds no memory object (an
    /// empty kernel launched and waited for again and again builds it once).
    kept: Option<Arc<SharedSnapshot>>,
    /// The sizes of the last accepted launch and the range they gave (see
    /// [`Kernel::ndrange`]).
    last_range: Option<(RangeKey, NdRange)>,
}

/// What [`Kernel::ndrange`]'s result depends on besides the kernel: the application's
/// arguments as read, and the device's worker count (the local size chosen for a NULL one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RangeKey {
    workers: u32,
    work_dim: u32,
    offset: Option<[usize; 3]>,
    global: Option<[usize; 3]>,
    local: Option<[usize; 3]>,
}

/// The work sizes of `clEnqueueNDRangeKernel` as the application gave them (`None`: NULL).
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub work_dim: u32,
    pub offset: Option<[usize; 3]>,
    pub global: Option<[usize; 3]>,
    pub local: Option<[usize; 3]>,
}

impl RangeKey {
    fn new(
        device: &Device,
        work_dim: u32,
        offset: Option<[usize; 3]>,
        global: Option<[usize; 3]>,
        local: Option<[usize; 3]>,
    ) -> RangeKey {
        RangeKey {
            workers: device.compute_units(),
            work_dim,
            offset,
            global,
            local,
        }
    }
}

/// The kernel's code as launches hold it: a reference of its own, aligned to 128 bytes.
/// Each launch takes a count at enqueue and a worker drops it when the launch has run; on
/// the code's own `Arc` those counts would share a cache line with fields the next enqueue
/// reads (its parameters, its sizes), so every drop on a worker cost the enqueuing thread
/// a miss there.
#[repr(align(128))]
struct LaunchCode(Arc<KernelCode>);

// SAFETY: `Kernel` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Kernel {
    const KIND: ObjectKind = ObjectKind::Kernel;
    fn header(&self) -> &Header {
        &self.header
    }
}

/// The work sizes of one launch, validated and completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdRange {
    pub work_dim: u32,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    pub local: [usize; 3],
}

impl NdRange {
    pub fn groups(&self) -> [usize; 3] {
        [0, 1, 2].map(|d| self.global[d] / self.local[d])
    }
}

impl Kernel {
    pub fn new(program: Arc<Program>, code: Arc<KernelCode>) -> Arc<Kernel> {
        program
            .attached_kernels
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let args = Mutex::new(Launching {
            args: packed::Args::new(&code),
            snapshot: Weak::new(),
            kept: None,
            last_range: None,
        });
        Arc::new(Kernel {
            header: Header::new(ObjectKind::Kernel),
            program,
            launch_code: Arc::new(LaunchCode(Arc::clone(&code))),
            code,
            args,
        })
    }

    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    pub fn code(&self) -> &KernelCode {
        &self.code
    }

    /// `clSetKernelArg` once the value has been read: "CL_INVALID_ARG_INDEX if arg_index is
    /// not a valid argument index", and the value must suit the parameter's kind (the C
    /// layer has already checked the sizes and handles it could).
    pub fn set_arg(&self, index: u32, value: ArgValue) -> ClResult<()> {
        let Some(param) = self.code.params.get(index as usize) else {
            return fail(CL_INVALID_ARG_INDEX);
        };
        let value = StoredArg::new(value);
        if !value.suits(&param.kind) {
            return fail(CL_INVALID_ARG_VALUE);
        }
        let mut launching = self.args.lock();
        launching.args.set(&self.code, index as usize, value);
        // The launches enqueued so far keep the arguments they had.
        launching.snapshot = Weak::new();
        launching.kept = None;
        Ok(())
    }

    /// `CL_KERNEL_WORK_GROUP_SIZE`: the largest work-group this kernel can run with.
    pub fn max_work_group_size(&self) -> usize {
        self.code
            .reqd_work_group_size
            .map_or(limits::MAX_WORK_GROUP_SIZE, |r| r.iter().product())
    }

    /// `CL_KERNEL_LOCAL_MEM_SIZE`: kernel-scope `__local` variables plus the `__local`
    /// arguments set so far.
    ///
    /// The sizes come from the application (`clSetKernelArg(k, i, size, NULL)` takes any
    /// nonzero size), so the sum saturates at `usize::MAX` instead of wrapping: a wrapped sum
    /// would report a small size for a kernel that can never launch.
    pub fn local_mem_size(&self) -> usize {
        self.args.lock().args.local_need()
    }

    /// Checks the work sizes of `clEnqueueNDRangeKernel` and picks the local size when the
    /// application left it to the driver.
    ///
    /// The sizes of the kernel's last accepted launch are remembered with what they gave:
    /// a burst launches one kernel with the same sizes again and again, and the checks and
    /// the choice cost ~200 instructions a launch, the lookup ~30. Everything they depend on
    /// is in the key or fixed for the kernel (its required and largest work-group size);
    /// a refused launch is never remembered.
    pub fn ndrange(
        &self,
        device: &Device,
        work_dim: u32,
        offset: Option<[usize; 3]>,
        global: Option<[usize; 3]>,
        local: Option<[usize; 3]>,
    ) -> ClResult<NdRange> {
        let key = RangeKey::new(device, work_dim, offset, global, local);
        self.remembered_ndrange(&mut self.args.lock(), device, key)
    }

    /// [`Kernel::ndrange`] under the kernel's lock.
    fn remembered_ndrange(
        &self,
        launching: &mut Launching,
        device: &Device,
        key: RangeKey,
    ) -> ClResult<NdRange> {
        if let Some((last, range)) = launching.last_range.as_ref()
            && *last == key
        {
            return Ok(*range);
        }
        let range = self.check_ndrange(device, key)?;
        launching.last_range = Some((key, range));
        Ok(range)
    }

    /// [`Kernel::ndrange`] then [`Kernel::prepare_into`] under one lock of the kernel (a
    /// launch's range is written to `range`, its arguments to `dst`; the size checks come
    /// first, as they did as two calls).
    ///
    /// # Safety
    /// As [`Kernel::prepare_into`]; `range` is valid for writes of an `NdRange`, written if
    /// this succeeds.
    #[inline]
    pub unsafe fn prepare_ndrange_into<A: LaunchArgs>(
        &self,
        device: &Device,
        sizes: Sizes,
        range: *mut NdRange,
        dst: *mut A,
    ) -> ClResult<()> {
        let Sizes {
            work_dim,
            offset,
            global,
            local,
        } = sizes;
        let key = RangeKey::new(device, work_dim, offset, global, local);
        let mut launching = self.args.lock();
        let checked = self.remembered_ndrange(&mut launching, device, key)?;
        let args = A::prepare(self, &mut launching, device)?;
        // SAFETY: the caller's contract.
        unsafe {
            dst.write(args);
            range.write(checked);
        }
        Ok(())
    }

    /// [`Kernel::ndrange`] without the memory of the last launch.
    fn check_ndrange(&self, device: &Device, sizes: RangeKey) -> ClResult<NdRange> {
        let RangeKey {
            work_dim,
            offset,
            global,
            local,
            ..
        } = sizes;
        // "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1
        // and 3)."
        if !(1..=3).contains(&work_dim) {
            return fail(CL_INVALID_WORK_DIMENSION);
        }
        let dims = work_dim as usize;
        // Unused dimensions are 1 wide (0 offset), as get_global_size etc. report them.
        // (Plain loops over the three dimensions: the iterator chains they replace cost a
        // burst of tiny launches ~200 instructions each.)
        let pad = |v: [usize; 3], fill: usize| {
            let mut out = [fill; 3];
            out[..dims].copy_from_slice(&v[..dims]);
            out
        };
        // "CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL, or if any of the values
        // specified in global_work_size[0], ... global_work_size[work_dim - 1] are 0".
        let Some(global) = global.map(|g| pad(g, 1)) else {
            return fail(CL_INVALID_GLOBAL_WORK_SIZE);
        };
        // "CL_INVALID_GLOBAL_WORK_SIZE if ... global_work_size[work_dim - 1] exceed the range
        // given by the sizeof(size_t) for the device": the global linear id of every
        // work-item must fit one too, so the number of work-items must.
        let mut items = 1usize;
        let mut overflow = false;
        for g in global {
            let (product, wrapped) = items.overflowing_mul(g);
            items = product;
            overflow |= wrapped;
        }
        if global.contains(&0) || overflow {
            return fail(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        let offset = pad(offset.unwrap_or([0; 3]), 0);
        // "CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size + the
        // corresponding values in global_work_offset for any dimensions is greater than the
        // sizeof(size_t) for the device".
        let mut past_end = false;
        for d in 0..dims {
            past_end |= global[d].overflowing_add(offset[d]).1;
        }
        if past_end {
            return fail(CL_INVALID_GLOBAL_OFFSET);
        }
        let reqd = self.code.reqd_work_group_size;
        let local = match (local, reqd) {
            (Some(l), _) => pad(l, 1),
            // OpenCL 1.2 has "CL_INVALID_WORK_GROUP_SIZE if local_work_size is NULL and the
            // __attribute__((reqd_work_group_size(X, Y, Z))) qualifier is used"; OpenCL 2.0
            // dropped that error, and the Khronos CTS (null_required_work_group_size, run
            // for every version) and every other implementation run the required size, so
            // clift does too.
            (None, Some(reqd)) => reqd,
            (None, None) => choose_local_size(
                global,
                dims,
                device.compute_units() as usize,
                self.max_work_group_size(),
            ),
        };
        // "CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in any of
        // local_work_size[0], ... is greater than the corresponding values specified by
        // CL_DEVICE_MAX_WORK_ITEM_SIZES[0], ...".
        if local.contains(&0) {
            return fail(CL_INVALID_WORK_GROUP_SIZE);
        }
        let mut too_large = false;
        for (size, max) in local.into_iter().zip(limits::MAX_WORK_ITEM_SIZES) {
            too_large |= size > max;
        }
        if too_large {
            return fail(CL_INVALID_WORK_ITEM_SIZE);
        }
        // "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and number of
        // work-items specified by global_work_size is not evenly divisible by size of
        // work-group given by local_work_size or does not match the work-group size specified
        // for kernel using the __attribute__((reqd_work_group_size(X, Y, Z))) qualifier",
        // or the group is larger than the kernel or device allows (no product overflows:
        // each size is at most CL_DEVICE_MAX_WORK_ITEM_SIZES).
        // (A group the size of the range, a tiny launch's, needs no division.)
        let mut uneven = false;
        for d in 0..3 {
            uneven |= global[d] != local[d] && global[d] % local[d] != 0;
        }
        let total = local[0] * local[1] * local[2];
        if uneven || reqd.is_some_and(|r| r != local) || total > self.max_work_group_size() {
            return fail(CL_INVALID_WORK_GROUP_SIZE);
        }
        Ok(NdRange {
            work_dim,
            offset,
            global,
            local,
        })
    }

    /// Snapshots the arguments for a launch: a copy of the argument block that
    /// `clSetKernelArg` packed, the layout of local memory, and the memory objects the
    /// command must keep alive.
    pub fn prepare(&self, device: &Device) -> ClResult<PreparedLaunch> {
        let mut launch = std::mem::MaybeUninit::uninit();
        // SAFETY: `launch` is valid for writes; `prepare_into` wrote it if it succeeded.
        unsafe {
            self.prepare_into(device, launch.as_mut_ptr())?;
            Ok(launch.assume_init())
        }
    }

    /// [`Kernel::prepare`] written in place at `dst` (a launch's place in its command's
    /// event).
    ///
    /// # Safety
    /// `dst` is valid for writes of a `PreparedLaunch` and holds none. It is written whole
    /// if this succeeds, and not at all if it fails.
    #[inline]
    pub unsafe fn prepare_into(&self, device: &Device, dst: *mut PreparedLaunch) -> ClResult<()> {
        let args = PreparedLaunch::prepare(self, &mut self.args.lock(), device)?;
        // SAFETY: the caller's contract.
        unsafe { dst.write(args) };
        Ok(())
    }

    /// The checks of a launch's arguments at enqueue, under the kernel's lock; returns the
    /// local memory a group lays out.
    #[inline(always)]
    fn check_arguments(&self, args: &packed::Args, device: &Device) -> ClResult<usize> {
        // "CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified."
        if !args.complete() {
            return fail(CL_INVALID_KERNEL_ARGS);
        }
        // "CL_OUT_OF_RESOURCES if there is a failure to queue the execution instance of
        // kernel on the command-queue because of insufficient resources needed to execute
        // the kernel": a work-item's private memory must fit the worker's stack.
        if self.code.private_mem_size > limits::MAX_PRIVATE_MEM_SIZE {
            return fail(CL_OUT_OF_RESOURCES);
        }
        // Every local argument starts at a multiple of the largest alignment (6.1.5: a
        // `__local long16 *` points to 128-byte aligned memory). Sizes from the application
        // are combined with checked arithmetic: an overflow means more local memory than any
        // device has.
        let Some(local_size) = args.local_size() else {
            return fail(CL_OUT_OF_RESOURCES);
        };
        // "CL_OUT_OF_RESOURCES if ... the local memory the kernel needs exceeds
        // CL_DEVICE_LOCAL_MEM_SIZE" (the spec lists it for resources the kernel needs).
        // The kernel's need is what CL_KERNEL_LOCAL_MEM_SIZE reports; the padding that
        // aligns each argument to MAX_ALIGN is the driver's and is not held against it.
        // (A kernel without local memory does not look the device's size up: it is at
        // least CL_DEVICE_LOCAL_MEM_SIZE's minimum, and the lookup cost a launch ~30
        // instructions.)
        if args.local_need() != 0 && args.local_need() as u64 > device.local_mem_size() {
            return fail(CL_OUT_OF_RESOURCES);
        }
        Ok(local_size)
    }

    /// The snapshot a launch may share: the last launch's while one holds it (or the
    /// kernel keeps it) and its memory objects are still the application's (a released one
    /// is no value any more: `alive`).
    #[inline(always)]
    fn live_snapshot(launching: &Launching) -> Option<Arc<SharedSnapshot>> {
        launching
            .snapshot
            .upgrade()
            .filter(|snapshot| snapshot.buffers.all_alive())
    }

    /// A new snapshot of the arguments (`local_size`: from [`Kernel::check_arguments`]).
    fn new_snapshot(&self, args: &packed::Args, local_size: usize) -> ClResult<Snapshot> {
        Ok(Snapshot {
            code: Arc::clone(&self.launch_code),
            block: args.block().clone(),
            buffers: args.hold()?,
            local_size,
            safe_objects: if self.code.safe_sites.is_some() {
                self.safe_objects(args.values())
            } else {
                Vec::new()
            },
        })
    }

    /// A new snapshot, recorded as the one later launches share.
    fn shared_snapshot(
        &self,
        launching: &mut Launching,
        local_size: usize,
    ) -> ClResult<Arc<SharedSnapshot>> {
        let snapshot = Arc::new(SharedSnapshot {
            _apart: [0; 48],
            snapshot: self.new_snapshot(&launching.args, local_size)?,
        });
        launching.snapshot = Arc::downgrade(&snapshot);
        if snapshot.buffers.is_empty() {
            launching.kept = Some(Arc::clone(&snapshot));
        }
        Ok(snapshot)
    }

    /// Safe mode: each parameter's object for the kernel's bounds checks (a buffer's
    /// address and size, size 0 for NULL; a `__local` argument's offset in the group's
    /// memory, laid out as [`packed::Args`] lays it out; nothing for by-value parameters,
    /// images and samplers).
    fn safe_objects(&self, values: &[Option<StoredArg>]) -> Vec<SafeObject> {
        let mut local = self
            .code
            .static_local_size
            .checked_next_multiple_of(MAX_ALIGN);
        (self.code.params.iter().zip(values))
            .map(|(param, value)| match (value, &param.kind) {
                (Some(StoredArg::Buffer(mem)), ParamKind::Buffer { constant }) => {
                    let mem = mem.as_ref().and_then(Weak::upgrade);
                    SafeObject {
                        base: mem.as_ref().map_or(0, |m| m.base() as u64),
                        size: mem.as_ref().map_or(0, |m| m.size() as u64),
                        space: if *constant {
                            safe_space::CONSTANT
                        } else {
                            safe_space::GLOBAL
                        },
                    }
                }
                (Some(StoredArg::Local(size)), ParamKind::Local) => {
                    let base = local.unwrap_or(0) as u64;
                    local = local.and_then(|t| local_total(t, [*size], MAX_ALIGN));
                    SafeObject {
                        base,
                        size: *size as u64,
                        space: safe_space::LOCAL,
                    }
                }
                _ => SafeObject::default(),
            })
            .collect()
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program
            .attached_kernels
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// How a launch holds its arguments, captured at enqueue time as the spec requires
/// ([`PreparedLaunch`], [`InEvent`]).
pub trait LaunchArgs: Send + Sized + 'static {
    /// Captures the arguments under the kernel's lock (`launching`), after their checks.
    fn prepare(kernel: &Kernel, launching: &mut Launching, device: &Device) -> ClResult<Self>;

    /// The arguments as the launch runs them ([`Snapshot::run`]).
    fn snapshot(&self) -> &Snapshot;
}

/// A launch's arguments as the kernel's [`Snapshot`] of them, shared with its other
/// launches while its arguments do not change (one count each): what a launch without an
/// event carries into its queue's batch (a pointer: the launch fits a 128-byte slot).
pub struct PreparedLaunch(Arc<SharedSnapshot>);

impl LaunchArgs for PreparedLaunch {
    #[inline(always)]
    fn prepare(kernel: &Kernel, launching: &mut Launching, device: &Device) -> ClResult<Self> {
        let local_size = kernel.check_arguments(&launching.args, device)?;
        let snapshot = match Kernel::live_snapshot(launching) {
            Some(snapshot) => snapshot,
            None => kernel.shared_snapshot(launching, local_size)?,
        };
        Ok(PreparedLaunch(snapshot))
    }

    fn snapshot(&self) -> &Snapshot {
        &self.0
    }
}

/// A launch's arguments in its event: the shared snapshot if there is one (launches
/// without events hold it, or the kernel keeps it), else a copy of its own, written in
/// the event with no allocation (a launch with buffers waited for at once would
/// otherwise allocate and free a snapshot each time: the kernel keeps one with buffers
/// only weakly).
pub struct InEvent(Captured);

/// See [`InEvent`]. (The copy is held by value: boxing it would cost the allocation it
/// saves.)
#[allow(clippy::large_enum_variant)]
enum Captured {
    Shared(Arc<SharedSnapshot>),
    Own(Snapshot),
}

impl LaunchArgs for InEvent {
    #[inline(always)]
    fn prepare(kernel: &Kernel, launching: &mut Launching, device: &Device) -> ClResult<Self> {
        let local_size = kernel.check_arguments(&launching.args, device)?;
        Ok(InEvent(match Kernel::live_snapshot(launching) {
            Some(snapshot) => Captured::Shared(snapshot),
            None if !launching.args.holds_objects() => {
                Captured::Shared(kernel.shared_snapshot(launching, local_size)?)
            }
            None => Captured::Own(kernel.new_snapshot(&launching.args, local_size)?),
        }))
    }

    fn snapshot(&self) -> &Snapshot {
        match &self.0 {
            Captured::Shared(snapshot) => snapshot,
            Captured::Own(snapshot) => snapshot,
        }
    }
}

impl std::ops::Deref for PreparedLaunch {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        &self.0
    }
}

impl PreparedLaunch {
    /// Whether two launches share their arguments' snapshot.
    #[cfg(test)]
    pub(crate) fn shares_arguments_with(&self, other: &PreparedLaunch) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A kernel's arguments as its launches use them: a copy of the argument block that
/// `clSetKernelArg` packed, the layout of local memory, and the memory objects the launches
/// keep alive until they have run. Immutable: `clSetKernelArg` makes the next launch build
/// a new one, and the launches enqueued before keep theirs.
///
/// Launches of a burst share one (each takes one count on it, where each took a count on
/// the code and on every memory object, and copied the block): the kernel keeps it only
/// weakly (`Launching::snapshot`), since a kernel must not keep its argument buffers alive.
pub struct Snapshot {
    code: Arc<LaunchCode>,
    block: packed::Block,
    /// Held until the launches have run.
    buffers: packed::Held,
    local_size: usize,
    /// Safe mode: one object per parameter (empty for a kernel built without checks).
    safe_objects: Vec<SafeObject>,
}

/// A [`Snapshot`] as launches share it (in an `Arc`): its fields start a cache line after
/// the `Arc`'s reference counts, so that the counts launches take and drop do not share a
/// line with what a worker reads (not by a 128-byte alignment: an over-aligned allocation
/// took glibc's `memalign`, ~450 instructions where `malloc` takes ~50).
#[repr(C)]
pub struct SharedSnapshot {
    /// Past the two counts before it in the `Arc`'s allocation (16-byte aligned), at
    /// least 64 bytes: the snapshot after it is on another line.
    _apart: [u8; 48],
    snapshot: Snapshot,
}

impl std::ops::Deref for SharedSnapshot {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        &self.snapshot
    }
}

impl Snapshot {
    /// Runs every work-group of `range` on the device's workers; a fault is told to
    /// `context`'s notify callback.
    pub fn run(
        &self,
        device: &Device,
        context: &crate::context::Context,
        range: NdRange,
    ) -> ClResult<()> {
        let observed = crate::profile::enabled()
            || crate::log::enabled(crate::log::Category::Launch, crate::log::Level::Info);
        if !observed {
            return self.run_groups(device, context, range);
        }
        let started = std::time::Instant::now();
        let result = self.run_groups(device, context, range);
        let time = started.elapsed();
        let items = range
            .global
            .iter()
            .fold(1usize, |n, &g| n.saturating_mul(g));
        if crate::profile::enabled() {
            crate::profile::record_launch(&self.code.0.name, items as u64, time);
        }
        crate::clift_log!(
            Launch,
            Info,
            "kernel {}: {} dims, global {:?}, local {:?}, offset {:?}, {} groups: ran {:.1} us",
            self.code.0.name,
            range.work_dim,
            &range.global[..range.work_dim as usize],
            &range.local[..range.work_dim as usize],
            &range.offset[..range.work_dim as usize],
            range.groups().iter().product::<usize>(),
            time.as_secs_f64() * 1e6
        );
        result
    }

    fn run_groups(
        &self,
        device: &Device,
        context: &crate::context::Context,
        range: NdRange,
    ) -> ClResult<()> {
        let executor = device.executor()?;
        let groups = range.groups();
        let base = WorkGroup {
            work_dim: range.work_dim,
            _pad: 0,
            global_offset: range.offset.map(|v| v as u64),
            global_size: range.global.map(|v| v as u64),
            local_size: range.local.map(|v| v as u64),
            num_groups: groups.map(|v| v as u64),
            group_id: [0; 3],
            local_memory: std::ptr::null_mut(),
            private_frames: std::ptr::null_mut(),
            printf_buffer: std::ptr::null(),
            watchdog: std::ptr::null(),
            safe: std::ptr::null(),
        };
        let code = &self.code.0;
        // A kernel whose vectorized row is still compiling after its build (`late.rs` in
        // the compiler) waits for it: the launch then runs at full speed, as it would have
        // after a build that compiled it. One atomic load once the program's rows are in.
        clift_compiler::codegen::wait_for_late_rows(code);
        let entry = code.entry;
        // printf output of this launch, printed when every work-group has run.
        let printf = clift_compiler::printf::PrintfBuffer::new(limits::PRINTF_BUFFER_SIZE);
        let printf_address = &printf as *const _ as usize;
        // Kernels with barriers keep each work-item's variables in a frame after the local
        // memory proper.
        // `prepare` bounded the local size by the device's and `ndrange` the work-group
        // size, so these fit; checked anyway so that a bug cannot wrap into a short arena.
        let items: usize = range.local.iter().product();
        let (frames_offset, frame_bytes) = self
            .local_size
            .checked_next_multiple_of(MAX_ALIGN)
            .zip(code.frame_size.checked_mul(items))
            .ok_or(crate::ClError(CL_OUT_OF_RESOURCES))?;
        let local_total = if frame_bytes > 0 {
            frames_offset
                .checked_add(frame_bytes)
                .ok_or(crate::ClError(CL_OUT_OF_RESOURCES))?
        } else {
            self.local_size
        };
        let args = self.block.as_ptr() as usize;
        // A fault (or the watchdog) stops the launch: the first is reported, the work-groups
        // not yet started are skipped.
        let armed = crate::watchdog::arm();
        let watchdog = crate::watchdog::flag_of(armed.as_ref()) as usize;
        let stopped = std::sync::atomic::AtomicBool::new(false);
        let first_fault = std::sync::OnceLock::new();
        let stack = code.private_mem_size;
        // Safe mode: the table the kernel's checks read, and where it records a violation.
        let safe_launch = SafeLaunch::new(&self.safe_objects, code.static_local_size as u64);
        let safe_address = if code.safe_sites.is_some() {
            &safe_launch as *const SafeLaunch as usize
        } else {
            0
        };
        executor.run_ndrange(groups, local_total, stack, &|chunk| {
            let local = chunk.local.as_mut_ptr();
            let mut group = WorkGroup {
                local_memory: local,
                printf_buffer: printf_address as *const u8,
                watchdog: watchdog as *const u8,
                safe: safe_address as *const u8,
                private_frames: if frame_bytes > 0 {
                    local.wrapping_add(frames_offset)
                } else {
                    std::ptr::null_mut()
                },
                ..base
            };
            // The thread's fault guard once per chunk, and one guarded call for the chunk's
            // groups (`run_chunk_guarded`), not one per group.
            let mut run = ChunkRun {
                entry,
                args: args as *const u8,
                group: &mut group,
                ids: chunk.ids,
                stopped: &stopped,
            };
            crate::fault::with_guard(|guard| {
                // SAFETY: `entry` is a work-group function compiled for this kernel's argument
                // block, which `prepare` built; the group's local memory is as large as the
                // kernel's static locals plus its local arguments, laid out as `prepare`
                // said; the watchdog flag is null or lives until the launch has run; `run`
                // is what `run_chunk_guarded` reads.
                let result = unsafe {
                    call_work_group(
                        guard,
                        run_chunk_guarded,
                        (&raw mut run).cast::<u8>(),
                        std::ptr::null(),
                    )
                };
                if let Err(fault) = result {
                    stopped.store(true, std::sync::atomic::Ordering::Relaxed);
                    // The group that faulted: the last one `run_chunk_guarded` started
                    // (written behind the compiler's back, so read afresh).
                    // SAFETY: `run.group` points to this closure's `group`.
                    let id = unsafe { std::ptr::read_volatile(&raw const (*run.group).group_id) };
                    let _ = first_fault.set((fault, id.map(|v| v as usize)));
                }
            })
        });
        let timed_out = armed.as_ref().is_some_and(|a| a.is_late());
        drop(armed);
        // "The output ... is flushed when the kernel completes" (order of calls kept).
        let text = printf.take();
        if !text.is_empty() {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            // A closed stdout is the application's choice; the kernel still completed.
            let _ = out.write_all(&text).and_then(|()| out.flush());
        }
        match first_fault.into_inner() {
            Some((fault, group)) => {
                let violation = safe_launch.first_violation();
                Err(self.report_fault(context, &fault, group, timed_out, violation))
            }
            None => Ok(()),
        }
    }

    /// Tells of a kernel stopped by a fault or the watchdog (stderr, `CLIFT_LOG=launch`, the
    /// context's notify callback); its event ends with [`KERNEL_FAULT_STATUS`].
    fn report_fault(
        &self,
        context: &crate::context::Context,
        fault: &crate::fault::Fault,
        group: [usize; 3],
        timed_out: bool,
        violation: Option<(u64, u64, u64, u64, u64)>,
    ) -> crate::ClError {
        let what = if let Some(v) = violation.filter(|_| fault.signal == 4) {
            self.describe_violation(v)
        } else if timed_out && fault.signal == 4 {
            format!(
                "ran past {}={} s and was stopped",
                clift_compiler::jit::watchdog::TIMEOUT_VAR,
                clift_compiler::jit::watchdog::timeout().map_or(0.0, |t| t.as_secs_f64())
            )
        } else {
            format!("faulted: {}", fault.describe())
        };
        let message = format!(
            "kernel '{}' {what} in work-group {group:?}; the command ends with \
             CL_OUT_OF_RESOURCES",
            self.code.0.name
        );
        if crate::log::enabled(crate::log::Category::Launch, crate::log::Level::Error) {
            crate::clift_log!(Launch, Error, "{message}");
        }
        if !crate::log::enabled(crate::log::Category::Launch, crate::log::Level::Error)
            || std::env::var_os(crate::log::LOG_FILE_VAR).is_some()
        {
            eprintln!("clift: {message}");
        }
        context.notify(&message);
        crate::ClError(KERNEL_FAULT_STATUS)
    }
}

impl Snapshot {
    /// What a safe-mode check found, for the fault's message: "made an out-of-bounds write
    /// of 4 bytes at 0x... (<source>:3:5): 4 bytes past the end of argument 1 'out' (a
    /// 4096-byte __global buffer at 0x...)".
    fn describe_violation(
        &self,
        (site, address, size, base, end): (u64, u64, u64, u64, u64),
    ) -> String {
        let write = site & clift_builtins::safe::WRITE_BIT != 0;
        let index = (site & !clift_builtins::safe::WRITE_BIT) as usize;
        let at = (self.code.0.safe_sites.as_deref())
            .and_then(|s| s.get(index.wrapping_sub(1)))
            .map_or("an unknown position", String::as_str);
        let access = if write { "write" } else { "read" };
        let head = format!(
            "made an out-of-bounds {access} of {size} bytes at address {address:#x} ({at}, safe mode)"
        );
        if address < clift_builtins::safe::NULL_PAGE {
            return format!("{head}: through a NULL pointer");
        }
        if base == end {
            return format!("{head}: no object of the launch holds that address");
        }
        let object_size = end.wrapping_sub(base);
        let position = if address < base {
            format!("{} bytes before the start of", base - address)
        } else {
            format!("at offset {} of", address - base)
        };
        // The argument whose object it is: a buffer by its address; a `__local` argument
        // (an offset in each group's own memory) by its size, when no other has that size.
        let params = || {
            self.code
                .0
                .params
                .iter()
                .zip(&self.safe_objects)
                .enumerate()
        };
        let is_local = |p: &KernelParam| matches!(p.kind, ParamKind::Local);
        let buffer = params().find(|(_, (p, o))| !is_local(p) && o.size > 0 && o.base == base);
        let locals: Vec<_> = params()
            .filter(|(_, (p, o))| is_local(p) && o.size == object_size)
            .collect();
        let named = match (buffer, locals.as_slice()) {
            (Some(found), _) => Some(found),
            (None, [found]) => Some(*found),
            _ => None,
        };
        let argument = named.map_or_else(String::new, |(i, (p, _))| {
            format!("argument {i} '{}', ", p.info.name)
        });
        format!("{head}: {position} {argument}an object of {object_size} bytes at {base:#x}")
    }
}

/// The groups of one chunk, run by [`run_chunk_guarded`] inside one guarded call.
struct ChunkRun<'a> {
    entry: clift_compiler::kernel::WorkGroupFn,
    args: *const u8,
    /// The launch's group description; `group_id` is the group running (after a fault: the
    /// group that faulted).
    group: *mut WorkGroup,
    ids: crate::scheduler::GroupIds,
    /// Set when a group of the launch has faulted: the groups not started are skipped.
    stopped: &'a std::sync::atomic::AtomicBool,
}

/// Runs the groups of the [`ChunkRun`] at `run`, called as a work-group function through the
/// fault trampoline, so that a chunk costs one guarded call instead of one per group (the
/// trampoline and its bookkeeping were a quarter of an empty one-item group's cost).
///
/// A fault in a kernel returns to the trampoline's landing past this frame, which holds
/// nothing to drop (references and plain integers), and nothing here panics.
///
/// # Safety
/// `run` must point to a live [`ChunkRun`] whose `entry`, `args` and `group` may be called as
/// [`call_work_group`] requires.
unsafe extern "C" fn run_chunk_guarded(run: *const u8, _unused: *const WorkGroup) {
    // SAFETY: the caller's contract.
    let run = unsafe { &mut *run.cast_mut().cast::<ChunkRun<'_>>() };
    for id in run.ids.by_ref() {
        if run.stopped.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        // SAFETY: the caller's contract: `group` is live and this thread's alone.
        unsafe {
            (*run.group).group_id = id.map(|v| v as u64);
            (run.entry)(run.args, run.group);
        }
    }
}

/// Runs work-groups (a chunk's, through [`run_chunk_guarded`]): the only place the runtime
/// enters compiled kernel code, on a worker or on a thread waiting for the command. It goes through the fault trampoline, so a fault
/// in the kernel's code (or the watchdog) comes back as an error.
///
/// # Safety
/// `entry` must be compiled for the argument block at `args`, and `group` must describe
/// local memory and frames as large as the kernel needs (or `entry` is
/// [`run_chunk_guarded`], with its own contract).
unsafe fn call_work_group(
    guard: &crate::fault::Guard<'_>,
    entry: clift_compiler::kernel::WorkGroupFn,
    args: *const u8,
    group: *const WorkGroup,
) -> Result<(), crate::fault::Fault> {
    // SAFETY: the caller's contract.
    unsafe { guard.call(entry, args, group) }
}

/// The execution status of a kernel command stopped by a fault in its code (an invalid
/// memory access, a stack overflow, a trap) or by the watchdog: `CL_OUT_OF_RESOURCES`, as
/// other vendors report kernel faults. Commands that wait for it end with
/// `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST`.
pub const KERNEL_FAULT_STATUS: cl_int = CL_OUT_OF_RESOURCES;

/// The local size the driver picks when the application passes NULL: enough work-groups to
/// keep every worker busy (8 per worker), each as large as that allows (up to 1024 items:
/// work-item loops amortize their overhead and vectorize better on larger groups), but no
/// smaller than [`MIN_CHOSEN_GROUP`] items where the range has them, made of divisors of the
/// global sizes as OpenCL 1.2 requires.
///
/// A range of at most [`MIN_CHOSEN_GROUP`] items (that the kernel allows in one group) is
/// one group, found without the divisor search: the search would pick exactly that, and a
/// burst of tiny launches paid ~70 instructions each for it.
pub fn choose_local_size(
    global: [usize; 3],
    dims: usize,
    workers: usize,
    max_items: usize,
) -> [usize; 3] {
    let total = global[..dims]
        .iter()
        .fold(1usize, |n, &g| n.saturating_mul(g));
    if total <= MIN_CHOSEN_GROUP.min(max_items) {
        return [0, 1, 2].map(|d| if d < dims { global[d] } else { 1 });
    }
    search_local_size(global, dims, workers, max_items, total)
}

/// [`choose_local_size`] for a range of `total` items, by a search of divisors.
fn search_local_size(
    global: [usize; 3],
    dims: usize,
    workers: usize,
    max_items: usize,
    total: usize,
) -> [usize; 3] {
    let spread = total / (workers.max(1) * 8);
    let mut budget = spread
        .max(total.min(MIN_CHOSEN_GROUP))
        .clamp(1, max_items.min(1024));
    let mut local = [1usize; 3];
    for d in 0..dims {
        let limit = budget.min(limits::MAX_WORK_ITEM_SIZES[d]);
        local[d] = largest_divisor_at_most(global[d], limit);
        budget = (budget / local[d]).max(1);
    }
    local
}

/// The fewest work-items a chosen work-group has where the range has that many: a
/// work-group costs tens of nanoseconds to run however small it is, so cutting a small
/// range (64 items on 16 workers) into one-item groups made its launch several times slower
/// than running it as a few groups, which need no helper thread at all.
pub const MIN_CHOSEN_GROUP: usize = 16;

/// The largest divisor of `n` that is at most `limit` (1 for `n` = 0; `limit` is at most
/// [`MAX_DIVISOR`], as every chosen work-group is).
///
/// Without a division where `n` fits or `limit` divides it (every launch of a small or a
/// power-of-two range). Otherwise the divisors at most `limit` are products of the prime
/// factors of `n` below 1024: those are found by trial division by the 172 primes below
/// 1024 (fewer where the cofactor runs out), and their products up to `limit` listed. A
/// search down from `limit` took up to 1,024 divisions (microseconds per launch of a prime
/// range).
fn largest_divisor_at_most(n: usize, limit: usize) -> usize {
    let limit = limit.clamp(1, MAX_DIVISOR);
    if n <= limit {
        return n.max(1);
    }
    if n.is_multiple_of(limit) {
        return limit;
    }
    // Every divisor of `n` at most `limit`, each listed once (unique factorization).
    let mut divisors = [0u16; MAX_DIVISOR];
    divisors[0] = 1;
    let mut count = 1;
    let mut add = |p: usize, exponent: u32| {
        // The divisors found before `p`, each times p, p², ... while at most `limit`.
        let known = count;
        for i in 0..known {
            let mut d = usize::from(divisors[i]);
            for _ in 0..exponent {
                d *= p;
                if d > limit {
                    break;
                }
                divisors[count] = d as u16;
                count += 1;
            }
        }
    };
    let mut rest = n;
    for p in SMALL_PRIMES.map(usize::from) {
        if p > limit || p * p > rest {
            break;
        }
        let mut exponent = 0;
        while rest.is_multiple_of(p) {
            rest /= p;
            exponent += 1;
        }
        if exponent > 0 {
            add(p, exponent);
        }
    }
    // What is left is 1, a prime, or a product of primes above `limit`.
    if rest > 1 && rest <= limit {
        add(rest, 1);
    }
    let largest = divisors[..count].iter().max();
    largest.map_or(1, |&d| usize::from(d))
}

/// The largest divisor [`largest_divisor_at_most`] looks for (a work-group's most items).
const MAX_DIVISOR: usize = 1024;

/// The primes below [`MAX_DIVISOR`].
const SMALL_PRIMES: [u16; 172] = small_primes();

const fn small_primes() -> [u16; 172] {
    let mut composite = [false; MAX_DIVISOR];
    let mut primes = [0u16; 172];
    let (mut n, mut count) = (2, 0);
    while n < MAX_DIVISOR {
        if !composite[n] {
            primes[count] = n as u16;
            count += 1;
            let mut m = n * n;
            while m < MAX_DIVISOR {
                composite[m] = true;
                m += n;
            }
        }
        n += 1;
    }
    assert!(count == primes.len());
    primes
}

/// `base` plus each of `sizes` rounded up to `align` bytes (the launch places each
/// `__local` argument at a multiple of [`MAX_ALIGN`]; `CL_KERNEL_LOCAL_MEM_SIZE` reports
/// them rounded to 16), or `None` where the total does not fit a `usize`. `base` is the
/// already-aligned size before the arguments.
fn local_total(base: usize, sizes: impl IntoIterator<Item = usize>, align: usize) -> Option<usize> {
    sizes.into_iter().try_fold(base, |total, size| {
        total.checked_add(size.checked_next_multiple_of(align)?)
    })
}

mod arg;
mod packed;

pub use arg::ArgHandles;

#[cfg(test)]
mod tests;
