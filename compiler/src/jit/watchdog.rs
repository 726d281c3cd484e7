//! The kernel watchdog's side in generated code (`CLIFT_KERNEL_TIMEOUT=seconds`).
//!
//! With the variable set, every loop back edge of a kernel (and every `goto`) reads its
//! launch's "past its deadline" flag, whose address the work-group context holds
//! ([`WorkGroup::watchdog`](crate::kernel::WorkGroup)) and a loop reads before it starts:
//! one load and a branch per iteration, not taken while the launch is on time. The runtime's watchdog thread sets the flag when the
//! launch passes its deadline; the code then executes a trap instruction, which the
//! runtime's fault handler turns into the event's error like any other kernel fault. Without
//! the variable no check is emitted at all.
//!
//! The check calls nothing: a call in a loop, even on a cold path, clobbers every
//! caller-saved register (all the vector registers), and the register allocator then keeps
//! a loop's floating-point values on the stack (a first version that called a poll function
//! cost a naive matrix multiply 60%).

use std::sync::OnceLock;
use std::time::Duration;

use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, types};
use cranelift_frontend::FunctionBuilder;

use crate::kernel::WorkGroup;

/// The environment variable: a kernel's time limit in seconds (fractions allowed).
pub const TIMEOUT_VAR: &str = "CLIFT_KERNEL_TIMEOUT";

/// The trap code of a watchdog stop (for the CLIF reader; every trap ends the same way).
pub const TRAP_CODE: u8 = 0x57;

/// The time limit of a kernel, if `CLIFT_KERNEL_TIMEOUT` sets one (read once). A value that
/// is not a positive number of seconds sets none.
pub fn timeout() -> Option<Duration> {
    static TIMEOUT: OnceLock<Option<Duration>> = OnceLock::new();
    *TIMEOUT.get_or_init(|| parse(std::env::var(TIMEOUT_VAR).ok().as_deref()?))
}

/// `CLIFT_KERNEL_TIMEOUT`'s value as a duration.
pub fn parse(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds > 0.0).then(|| Duration::from_secs_f64(seconds.min(1e9)))
}

/// Whether back edges get the check: a timeout is set, on x86-64 Linux, where the runtime
/// turns the trap into an event error (elsewhere a trap would end the process).
pub fn enabled() -> bool {
    cfg!(all(target_arch = "x86_64", target_os = "linux")) && timeout().is_some()
}

/// Emits the watchdog check at a back edge, in the block being built (which goes on after
/// it), if [`enabled`]; `group` is the work-group context pointer.
pub fn check_back_edge(b: &mut FunctionBuilder<'_>, group: ir::Value) {
    if enabled() {
        let flag = flag_address(b, group);
        check_flag(b, flag);
    }
}

/// The address of the launch's flag, read from the work-group context `group`: fixed for
/// the launch, so a loop reads it once, before it starts.
pub fn flag_address(b: &mut FunctionBuilder<'_>, group: ir::Value) -> ir::Value {
    b.ins().load(
        types::I64,
        MemFlagsData::trusted().with_readonly(),
        group,
        WorkGroup::OFFSET_WATCHDOG,
    )
}

/// Emits the check of the flag at `flag` (from [`flag_address`]): one load and a branch.
/// The flag is written by another thread, so it is loaded on every iteration (a stale value
/// delays the stop by one).
pub fn check_flag(b: &mut FunctionBuilder<'_>, flag: ir::Value) {
    let late = b.ins().load(types::I8, MemFlagsData::trusted(), flag, 0);
    let (stop, go_on) = (b.create_block(), b.create_block());
    b.ins().brif(late, stop, &[], go_on, &[]);
    b.set_cold_block(stop);
    b.switch_to_block(stop);
    b.seal_block(stop);
    b.ins().trap(ir::TrapCode::unwrap_user(TRAP_CODE));
    b.switch_to_block(go_on);
    b.seal_block(go_on);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_positive_seconds() {
        assert_eq!(parse("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse("0"), None);
        assert_eq!(parse("-1"), None);
        assert_eq!(parse("soon"), None);
        assert_eq!(parse("inf"), None);
    }
}
