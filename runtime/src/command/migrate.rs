//! `clEnqueueMigrateMemObjects`.

use std::sync::Arc;

use khronos_headers::*;

use super::Command;
use crate::error::{ClResult, fail};
use crate::memory::Mem;

/// Host and device share one memory: once ordered after its wait list, the objects are
/// where either side can use them. The command holds them until then.
pub struct Migrate {
    objects: Vec<Arc<Mem>>,
}

impl Migrate {
    /// "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL", "if flags
    /// is not 0 or is not any of the values described in the table above." `objects`
    /// resolves the handles once those hold (the C layer's handle checks come after).
    pub fn new(
        count: usize,
        flags: cl_mem_migration_flags,
        objects: impl FnOnce() -> ClResult<Vec<Arc<Mem>>>,
    ) -> ClResult<Self> {
        if count == 0 {
            return fail(CL_INVALID_VALUE);
        }
        let known = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        if flags & !known != 0 {
            return fail(CL_INVALID_VALUE);
        }
        Ok(Migrate {
            objects: objects()?,
        })
    }
}

impl Command for Migrate {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_MIGRATE_MEM_OBJECTS
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        drop(self.objects);
        Ok(())
    }
}
