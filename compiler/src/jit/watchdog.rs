//! The kernel watchdog's side in generated code (`CLIFT_KERNEL_TIMEOUT=seconds`).
//!
//! With the variable set, every loop back edge of a kernel (and every `goto`) checks one
//! process-wide word, [`TRIPPED`]: one load and a compare-and-branch that is never taken
//! while no launch is past its deadline. When the runtime's watchdog finds a launch past its
//! deadline it raises the word; the back edges of every running kernel then call [`poll`],
//! which answers whether the launch running on *this* thread is the late one (the runtime
//! names it per thread with [`set_current`]). If so the code executes a trap instruction,
//! which the runtime's fault handler turns into the event's error like any other kernel
//! fault; otherwise the loop goes on. Without the variable no check is emitted at all.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, types};
use cranelift_frontend::FunctionBuilder;

/// The environment variable: a kernel's time limit in seconds (fractions allowed).
pub const TIMEOUT_VAR: &str = "CLIFT_KERNEL_TIMEOUT";

/// The trap code of a watchdog stop (for the CLIF reader; every trap ends the same way).
pub const TRAP_CODE: u8 = 0x57;

/// Nonzero while some launch is past its deadline (the number of such launches).
pub static TRIPPED: AtomicU32 = AtomicU32::new(0);

thread_local! {
    /// The "past its deadline" flag of the launch this thread is running, or null.
    static CURRENT: Cell<*const AtomicBool> = const { Cell::new(std::ptr::null()) };
}

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

/// Names the flag that tells whether the launch this thread runs is past its deadline
/// (null: none). The flag must outlive the kernel call it is set for.
pub fn set_current(flag: *const AtomicBool) {
    CURRENT.with(|c| c.set(flag));
}

/// Whether the launch running on this thread is past its deadline; called by back edges
/// while [`TRIPPED`] is raised.
pub extern "C" fn poll() -> u32 {
    let flag = CURRENT.with(Cell::get);
    // SAFETY: `set_current`'s contract: the flag lives while the kernel runs.
    u32::from(!flag.is_null() && unsafe { (*flag).load(Ordering::Relaxed) })
}

/// Emits the watchdog check at a back edge, in the block being built (which goes on after
/// it), if a timeout is set.
///
/// Only on x86-64 Linux, where the runtime turns the trap into an event error; elsewhere a
/// trap would end the process, so no check is emitted.
pub fn check_back_edge(b: &mut FunctionBuilder<'_>) {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) || timeout().is_none() {
        return;
    }
    let ptr = types::I64;
    let word = b.ins().iconst(ptr, &TRIPPED as *const AtomicU32 as i64);
    // A plain load: the word is only ever read as a hint, and a stale value only delays the
    // stop by one iteration.
    let tripped = b.ins().load(types::I32, MemFlagsData::trusted(), word, 0);
    let (slow, stop, go_on) = (b.create_block(), b.create_block(), b.create_block());
    b.ins().brif(tripped, slow, &[], go_on, &[]);
    b.set_cold_block(slow);
    b.set_cold_block(stop);
    b.switch_to_block(slow);
    b.seal_block(slow);
    // `poll` is `extern "C"`: the System V convention on x86-64 Linux.
    let mut sig = ir::Signature::new(cranelift_codegen::isa::CallConv::SystemV);
    sig.returns.push(ir::AbiParam::new(types::I32));
    let sig = b.import_signature(sig);
    let callee = b
        .ins()
        .iconst(ptr, poll as extern "C" fn() -> u32 as usize as i64);
    let call = b.ins().call_indirect(sig, callee, &[]);
    let late = b.inst_results(call)[0];
    b.ins().brif(late, stop, &[], go_on, &[]);
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

    #[test]
    fn poll_answers_for_this_threads_launch_only() {
        let late = AtomicBool::new(true);
        assert_eq!(poll(), 0);
        set_current(&late);
        assert_eq!(poll(), 1);
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(poll(), 0));
        });
        late.store(false, Ordering::Relaxed);
        assert_eq!(poll(), 0);
        set_current(std::ptr::null());
    }
}
