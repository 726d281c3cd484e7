//! Kernel launches: `clEnqueueNDRangeKernel` and `clEnqueueTask`.
//!
//! The work sizes are checked by `Kernel::ndrange` and the arguments captured by
//! `Kernel::prepare`, both at enqueue time, as the spec requires; running the command runs
//! every work-group on the device's workers.

use std::sync::Arc;

use khronos_headers::*;

use super::Command;
use crate::device::Device;
use crate::error::ClResult;
use crate::kernel::{Kernel, NdRange, PreparedLaunch};

/// The most work-items of a launch that is deferred until waited for (`Command::short`).
pub const SHORT_LAUNCH: usize = 4096;

/// A kernel launch over an NDRange (on its queue's device).
pub struct Launch {
    command_type: cl_command_type,
    range: NdRange,
    prepared: PreparedLaunch,
}

impl Launch {
    /// `clEnqueueNDRangeKernel` with the first `work_dim` entries of each array (`None`:
    /// the application passed NULL).
    pub fn ndrange(
        device: &Arc<Device>,
        kernel: &Kernel,
        work_dim: u32,
        offset: Option<[usize; 3]>,
        global: Option<[usize; 3]>,
        local: Option<[usize; 3]>,
    ) -> ClResult<Self> {
        let range = kernel.ndrange(device, work_dim, offset, global, local)?;
        Self::prepared(CL_COMMAND_NDRANGE_KERNEL, device, kernel, range)
    }

    /// `clEnqueueTask`: "The kernel is executed using a single work-item", an NDRange of one
    /// item in one group.
    pub fn task(device: &Arc<Device>, kernel: &Kernel) -> ClResult<Self> {
        let one = Some([1; 3]);
        let range = kernel.ndrange(device, 1, None, one, one)?;
        Self::prepared(CL_COMMAND_TASK, device, kernel, range)
    }

    fn prepared(
        command_type: cl_command_type,
        device: &Arc<Device>,
        kernel: &Kernel,
        range: NdRange,
    ) -> ClResult<Self> {
        Ok(Launch {
            command_type,
            range,
            prepared: kernel.prepare(device)?,
        })
    }
}

impl Command for Launch {
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
            .run(queue.device(), queue.context(), self.range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch is written into its event, not boxed beside it: one allocation per launch.
    /// (`Option` of the closure `command::enqueue` makes, which holds just the launch.)
    #[test]
    fn a_launch_is_held_in_its_event() {
        assert!(crate::queue::fits_in_event::<Option<Launch>>());
        assert!(!crate::queue::fits_in_event::<[u128; 25]>());
    }
}
