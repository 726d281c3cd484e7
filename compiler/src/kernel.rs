//! What a compiled kernel is to the runtime: the work-group function ABI and the
//! description of its parameters.
//!
//! A kernel compiles to one function that runs a whole work-group:
//!
//! ```text
//! unsafe extern "C" fn(args: *const u8, group: *const WorkGroup)
//! ```
//!
//! `args` is the argument block the runtime builds at enqueue time (one slot per parameter
//! at [`KernelParam::offset`]); `group` says which work-group to run and where its local
//! memory is. The function loops over the work-items itself.

use std::sync::Arc;

/// The per-work-group context passed to a work-group function. `#[repr(C)]`: generated code
/// reads its fields at fixed offsets.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WorkGroup {
    /// `get_work_dim()`.
    pub work_dim: u32,
    pub _pad: u32,
    /// `get_global_offset(d)`.
    pub global_offset: [u64; 3],
    /// `get_global_size(d)`.
    pub global_size: [u64; 3],
    /// `get_local_size(d)` (this group's: equal for every group, since OpenCL 1.2 requires
    /// the global size to be a multiple of the local size).
    pub local_size: [u64; 3],
    /// `get_num_groups(d)`.
    pub num_groups: [u64; 3],
    /// `get_group_id(d)`.
    pub group_id: [u64; 3],
    /// The group's local memory: kernel-scope `__local` variables first, then the `__local`
    /// pointer arguments at the offsets their argument slots hold.
    pub local_memory: *mut u8,
    /// Per-work-item frames of kernels with barriers: [`KernelCode::frame_size`] bytes for
    /// each work-item, in linear local-id order (NULL for kernels without barriers).
    pub private_frames: *mut u8,
    /// The launch's `printf` output (a `clift_builtins::printf::PrintfBuffer`).
    pub printf_buffer: *const u8,
    /// The launch's "past its deadline" flag (an `AtomicBool`) when `CLIFT_KERNEL_TIMEOUT`
    /// is set (loop back edges read it, `crate::jit::watchdog`); null otherwise.
    pub watchdog: *const u8,
    /// The launch's table of memory objects (a `clift_builtins::safe::SafeLaunch`) for a
    /// kernel built in safe mode (`crate::codegen::safe`); null otherwise.
    pub safe: *const u8,
}

impl WorkGroup {
    /// Byte offsets of the fields, for the code generator.
    pub const OFFSET_WORK_DIM: i32 = 0;
    pub const OFFSET_GLOBAL_OFFSET: i32 = 8;
    pub const OFFSET_GLOBAL_SIZE: i32 = 32;
    pub const OFFSET_LOCAL_SIZE: i32 = 56;
    pub const OFFSET_NUM_GROUPS: i32 = 80;
    pub const OFFSET_GROUP_ID: i32 = 104;
    pub const OFFSET_LOCAL_MEMORY: i32 = 128;
    pub const OFFSET_PRIVATE_FRAMES: i32 = 136;
    pub const OFFSET_PRINTF_BUFFER: i32 = 144;
    pub const OFFSET_WATCHDOG: i32 = 152;
    pub const OFFSET_SAFE: i32 = 160;
}

/// The machine code of a work-group function.
pub type WorkGroupFn = unsafe extern "C" fn(args: *const u8, group: *const WorkGroup);

/// How a kernel parameter is passed, which decides what `clSetKernelArg` accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A `__global` or `__constant` pointer: the slot holds the buffer's address (8 bytes),
    /// or NULL.
    Buffer { constant: bool },
    /// A `__local` pointer: `clSetKernelArg` gives a size and no value; the slot holds the
    /// offset of that much memory in the group's local memory (8 bytes).
    Local,
    /// Anything passed by value (scalars, vectors, structs): the slot holds the bytes.
    Value { size: usize },
    /// A `sampler_t` (4 bytes: the sampler's bits).
    Sampler,
    /// An image of this type (8 bytes: the address of the image's
    /// `clift_builtins::image::ImageDescriptor`).
    Image(crate::frontend::types::ImageKind),
}

/// `clGetKernelArgInfo`'s view of a parameter (`-cl-kernel-arg-info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    pub name: String,
    /// The type as written, e.g. `float4*`, `uint` (`CL_KERNEL_ARG_TYPE_NAME`).
    pub type_name: String,
    /// `CL_KERNEL_ARG_ADDRESS_*`.
    pub address_qualifier: u32,
    /// `CL_KERNEL_ARG_ACCESS_*`.
    pub access_qualifier: u32,
    /// `CL_KERNEL_ARG_TYPE_*` bits.
    pub type_qualifier: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    pub kind: ParamKind,
    /// Where its slot is in the argument block.
    pub offset: usize,
    pub info: ParamInfo,
}

/// The largest alignment of any OpenCL C type: `long16`/`double16`, 128 bytes ("a data item
/// declared to be a data type in memory is always aligned to the size of the data type",
/// 6.1.5). The work-group's local memory, each `__local` argument in it and the per-item
/// frames start at multiples of it, so that every object placed at an offset aligned for
/// its type is aligned in memory too.
pub const MAX_ALIGN: usize = 128;

/// How a kernel's work-group function runs its work-items (`CLIFT_LOG=build` says which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Execution {
    /// No barrier: one loop over the work-items.
    WorkItemLoop,
    /// Barriers the planner splits the kernel at: a loop over the work-items per region.
    BarrierRegions,
    /// Barriers the planner cannot split around (reached through `goto`, in a `switch` case
    /// that breaks from an `if`, ...): a resumable work-item function, about half as fast.
    Resumable,
    /// A body without effect (`passes::analysis::has_no_effect`): the work-group function
    /// returns at once.
    NoEffect,
}

impl Execution {
    /// A line for the build log.
    pub fn describe(self) -> &'static str {
        match self {
            Execution::WorkItemLoop => "a loop over its work-items",
            Execution::BarrierRegions => "a work-item loop per region between barriers",
            Execution::Resumable => {
                "a resumable work-item function: the work-group planner cannot split it at \
                 its barriers (a barrier reached through goto, or in a switch case that \
                 breaks from inside an if), which runs about half as fast"
            }
            Execution::NoEffect => {
                "nothing: its body has no effect (it writes only its private variables, calls \
                 no function with an effect and has no loop), so each work-group returns at \
                 once"
            }
        }
    }
}

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct KernelCode {
    /// How its work-items run.
    pub execution: Execution,
    /// How many work-items of dimension 0 its loop runs per step with SIMD instructions
    /// (`codegen/simd`: 4 per group of registers, 8 or 16 where a step runs several
    /// groups), or why it runs them one at a time.
    pub vectorized: Result<u32, String>,
    pub name: String,
    pub params: Vec<KernelParam>,
    /// The size of the argument block.
    pub args_size: usize,
    /// Bytes of kernel-scope `__local` variables (`CL_KERNEL_LOCAL_MEM_SIZE` adds the local
    /// arguments to it).
    pub static_local_size: usize,
    /// `__attribute__((reqd_work_group_size(x, y, z)))`.
    pub reqd_work_group_size: Option<[usize; 3]>,
    /// `CL_KERNEL_ATTRIBUTES`: the attributes as written in the source.
    pub attributes: String,
    /// `CL_KERNEL_PRIVATE_MEM_SIZE`: bytes of private memory per work-item.
    pub private_mem_size: usize,
    /// Bytes of the per-work-item frame a kernel with barriers keeps its variables in (0
    /// for kernels without barriers); the runtime provides one per work-item.
    pub frame_size: usize,
    /// Whether the program was built with `-cl-kernel-arg-info` (`clGetKernelArgInfo`).
    pub arg_info: bool,
    pub entry: WorkGroupFn,
    /// Keeps the JIT'd code alive for as long as any kernel of the program is.
    pub code_owner: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// Safe mode (`crate::codegen::CodegenOptions::safe`): where each bounds check of the
    /// program is, as `file:line:col` (site `i + 1`); `None` for a build without checks,
    /// whose launches need no table of objects.
    pub safe_sites: Option<Arc<[String]>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn field_offsets_match_the_constants() {
        assert_eq!(
            offset_of!(WorkGroup, work_dim) as i32,
            WorkGroup::OFFSET_WORK_DIM
        );
        assert_eq!(
            offset_of!(WorkGroup, global_offset) as i32,
            WorkGroup::OFFSET_GLOBAL_OFFSET
        );
        assert_eq!(
            offset_of!(WorkGroup, global_size) as i32,
            WorkGroup::OFFSET_GLOBAL_SIZE
        );
        assert_eq!(
            offset_of!(WorkGroup, local_size) as i32,
            WorkGroup::OFFSET_LOCAL_SIZE
        );
        assert_eq!(
            offset_of!(WorkGroup, num_groups) as i32,
            WorkGroup::OFFSET_NUM_GROUPS
        );
        assert_eq!(
            offset_of!(WorkGroup, group_id) as i32,
            WorkGroup::OFFSET_GROUP_ID
        );
        assert_eq!(
            offset_of!(WorkGroup, local_memory) as i32,
            WorkGroup::OFFSET_LOCAL_MEMORY
        );
        assert_eq!(
            offset_of!(WorkGroup, watchdog) as i32,
            WorkGroup::OFFSET_WATCHDOG
        );
        assert_eq!(offset_of!(WorkGroup, safe) as i32, WorkGroup::OFFSET_SAFE);
    }
}
