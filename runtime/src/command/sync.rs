//! Synchronization points: markers, barriers and `clEnqueueWaitForEvents`. They do nothing
//! when they run; what they are is how the queue orders them.

use std::sync::Arc;

use khronos_headers::*;

use super::Command;
use crate::error::{ClResult, fail};
use crate::event::Event;
use crate::queue::{Queue, QueueOrder};

/// A marker or a barrier.
pub struct SyncPoint {
    command_type: cl_command_type,
    order: QueueOrder,
}

impl SyncPoint {
    /// "waits for either a list of events to complete, or if the list is empty it waits for
    /// all commands previously enqueued"; a barrier also holds back every later command.
    pub fn new(barrier: bool, has_wait_list: bool) -> SyncPoint {
        let (command_type, order) = match (barrier, has_wait_list) {
            (true, waits) => (
                CL_COMMAND_BARRIER,
                QueueOrder::Barrier { after_all: !waits },
            ),
            (false, false) => (CL_COMMAND_MARKER, QueueOrder::AfterAll),
            (false, true) => (CL_COMMAND_MARKER, QueueOrder::Command),
        };
        SyncPoint {
            command_type,
            order,
        }
    }

    /// `clEnqueueWaitForEvents` (1.1): "Enqueues a wait for a specific event or a list of
    /// events to complete before any future commands queued in the command-queue are
    /// executed": a barrier on the list, reported as a marker. "CL_INVALID_CONTEXT if the
    /// context associated with command_queue and events in event_list are not the same."
    pub fn wait_for_events(queue: &Queue, events: &[Arc<Event>]) -> ClResult<SyncPoint> {
        if events
            .iter()
            .any(|e| !Arc::ptr_eq(e.context(), queue.context()))
        {
            return fail(CL_INVALID_CONTEXT);
        }
        Ok(SyncPoint {
            command_type: CL_COMMAND_MARKER,
            order: QueueOrder::Barrier { after_all: false },
        })
    }
}

impl Command for SyncPoint {
    fn command_type(&self) -> cl_command_type {
        self.command_type
    }

    fn order(&self) -> QueueOrder {
        self.order
    }

    fn run(self, _queue: &Queue) -> ClResult<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_barriers_are_ordered_as_the_spec_says() {
        let kinds = |b, w| {
            let p = SyncPoint::new(b, w);
            (p.command_type, p.order)
        };
        assert_eq!(
            kinds(false, false),
            (CL_COMMAND_MARKER, QueueOrder::AfterAll)
        );
        assert_eq!(kinds(false, true), (CL_COMMAND_MARKER, QueueOrder::Command));
        let barrier = |after_all| (CL_COMMAND_BARRIER, QueueOrder::Barrier { after_all });
        assert_eq!(kinds(true, false), barrier(true));
        assert_eq!(kinds(true, true), barrier(false));
    }
}
