//! Kernel launches: `clEnqueueNDRangeKernel` and `clEnqueueTask`.
//!
//! The work sizes are checked by `Kernel::ndrange` and the arguments captured by
//! `Kernel::prepare`, both at enqueue time, as the spec requires; running the command runs
//! every work-group on the device's workers.

use std::sync::Arc;

use khronos_headers::*;

use super::Command;
use crate::error::ClResult;
use crate::event::Event;
use crate::kernel::{InEvent, Kernel, LaunchArgs, NdRange, PreparedLaunch, Sizes};
use crate::queue::Queue;

/// The most work-items of a launch that is deferred until waited for (`Command::short`).
pub const SHORT_LAUNCH: usize = 4096;

/// A kernel launch over an NDRange (on its queue's device), holding its arguments as `A`:
/// a shared snapshot ([`PreparedLaunch`]: a launch without an event, in a batch's small
/// slot) or [`InEvent`] (a launch with its event, where a copy of its own costs no
/// allocation).
pub struct Launch<A = PreparedLaunch> {
    command_type: cl_command_type,
    range: NdRange,
    prepared: A,
}

impl Launch {
    /// `clEnqueueNDRangeKernel` with the first `work_dim` entries of each array (`None`:
    /// the application passed NULL), after `waits` (validated by the caller). The work
    /// sizes are checked first, then the launch is built in its event, both under one lock
    /// of the kernel (`Kernel::prepare_ndrange_into`); the event is returned if `returned`
    /// (the application asked for it).
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue_ndrange(
        queue: &Arc<Queue>,
        kernel: &Kernel,
        work_dim: u32,
        offset: Option<[usize; 3]>,
        global: Option<[usize; 3]>,
        local: Option<[usize; 3]>,
        waits: Vec<Arc<Event>>,
        returned: bool,
    ) -> ClResult<Option<Arc<Event>>> {
        let device = queue.device();
        let sizes = Sizes {
            work_dim,
            offset,
            global,
            local,
        };
        // Built for the batch (a shared snapshot) only when it will likely go there
        // without an event.
        if !returned && queue.batch_looks_open() {
            let prepare = |range: *mut NdRange, prepared: *mut PreparedLaunch| {
                // SAFETY: `enqueue` hands places valid for writes, written whole or not
                // at all.
                unsafe { kernel.prepare_ndrange_into(device, sizes, range, prepared) }
            };
            return Self::enqueue(queue, CL_COMMAND_NDRANGE_KERNEL, prepare, waits, returned);
        }
        let prepare = |range: *mut NdRange, prepared: *mut InEvent| {
            // SAFETY: as above.
            unsafe { kernel.prepare_ndrange_into(device, sizes, range, prepared) }
        };
        Self::enqueue(queue, CL_COMMAND_NDRANGE_KERNEL, prepare, waits, returned)
    }

    /// `clEnqueueTask`: "The kernel is executed using a single work-item", an NDRange of one
    /// item in one group.
    pub fn enqueue_task(
        queue: &Arc<Queue>,
        kernel: &Kernel,
        waits: Vec<Arc<Event>>,
    ) -> ClResult<Arc<Event>> {
        let one = Some([1; 3]);
        let range = kernel.ndrange(queue.device(), 1, None, one, one)?;
        let device = queue.device();
        let prepare = |at: *mut NdRange, prepared: *mut PreparedLaunch| {
            // SAFETY: as in `enqueue_ndrange`.
            unsafe {
                kernel.prepare_into(device, prepared)?;
                at.write(range);
            }
            Ok(())
        };
        let event = Self::enqueue(queue, CL_COMMAND_TASK, prepare, waits, true)?;
        Ok(event.expect("the event is returned when asked for"))
    }

    /// Builds the launch straight into the command's event: `prepare` writes its range and
    /// its arguments (whole, or nothing if it fails).
    fn enqueue<A: LaunchArgs>(
        queue: &Arc<Queue>,
        command_type: cl_command_type,
        prepare: impl FnOnce(*mut NdRange, *mut A) -> ClResult<()>,
        waits: Vec<Arc<Event>>,
        returned: bool,
    ) -> ClResult<Option<Arc<Event>>> {
        let build = |at: *mut Launch<A>| {
            // SAFETY: `at` is valid for writes of a `Launch`; `prepare` writes the range
            // and the arguments whole or, failing, nothing, and the last field follows.
            unsafe {
                prepare(&raw mut (*at).range, &raw mut (*at).prepared)?;
                (&raw mut (*at).command_type).write(command_type);
            }
            Ok(())
        };
        // SAFETY: `build` writes every field of the launch, or nothing.
        unsafe { super::enqueue_built_returning(queue, waits, false, returned, build) }
    }
}

impl<A: LaunchArgs> Command for Launch<A> {
    fn command_type(&self) -> cl_command_type {
        self.command_type
    }

    /// A launch of at most [`SHORT_LAUNCH`] work-items: the ranges whose launch overhead
    /// is most of their time (and which the launching thread runs without helpers).
    fn short(&self) -> bool {
        self.range.global.iter().product::<usize>() <= SHORT_LAUNCH
    }

    fn run(self, queue: &crate::queue::Queue) -> ClResult<()> {
        self.prepared
            .snapshot()
            .run(queue.device(), queue.context(), self.range)
    }

    /// A launch runs by reference: a burst's launches then keep their code's and memory
    /// objects' counts until the enqueuing thread drops them.
    fn run_kept(&mut self, queue: &crate::queue::Queue) -> Option<ClResult<()>> {
        Some(
            self.prepared
                .snapshot()
                .run(queue.device(), queue.context(), self.range),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch is written into its event, not boxed beside it: one allocation per launch.
    #[test]
    fn a_launch_is_held_in_its_event() {
        assert!(crate::queue::fits_in_event::<super::super::Once<Launch>>());
        assert!(!crate::queue::fits_in_event::<[u128; 25]>());
    }

    /// A launch (its arguments a shared snapshot) fits a batch's 128-byte slot in place.
    #[test]
    fn a_launch_fits_a_batch_slot() {
        assert!(crate::queue::fits_in::<super::super::Once<Launch>, 7>());
        // A launch with its own copy of its arguments goes in its event, never a batch.
        type InEvent = Launch<crate::kernel::InEvent>;
        assert!(crate::queue::fits_in_event::<super::super::Once<InEvent>>());
        assert!(!crate::queue::fits_in::<super::super::Once<InEvent>, 7>());
        assert!(!crate::queue::fits_in::<[u128; 8], 7>());
        assert_eq!(size_of::<crate::queue::Slot<7>>(), 128);
    }
}
