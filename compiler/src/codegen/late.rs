//! Late rows: large vectorized row and region functions compiled after the build returns.
//!
//! A kernel's vectorized row (`simd`) and its scalar row give the same results: the
//! vectorized one only runs the row's items faster. Yet a large vectorized row costs far more
//! to compile than the scalar one (the bench's ray tracer: 43.7 M instructions against
//! 11.8 M), and the vectorized rows were about half the build of the bench's program. So a
//! vectorized function of [`LATE_ROW_INSTS`] instructions or more is taken out of the
//! build's queue: the work-group function calls it through a slot that first holds
//! [`no_items`], a row that runs no item (the scalar row then runs the whole row), and the
//! function is compiled on the build pool once `compile` has returned, defined in the
//! program's own JIT module (cranelift-jit puts definitions made after a finalize in new
//! pages and leaves the code that runs untouched), and its address stored in the slot
//! (a Release store; the work-group function's load is an atomic, Acquire, load). The
//! stub stays valid: it is Rust code.
//!
//! The compile holds no strong reference to the program's code until it is done: a program
//! released meanwhile frees its code at once, and the finished compile is dropped
//! (abandoned) instead of defined. A late row that fails to compile keeps the stub.
//!
//! Code generation defers only where the build asks for it (`CodegenOptions::defer_rows`,
//! which the runtime sets unless `CLIFT_DEFER_ROWS=0`), where no machine code is dumped
//! (`CLIFT_DUMP_CLIF`, the stage goldens: they print every function's code in the build),
//! and where the build pool exists.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock, RwLockWriteGuard, Weak};

use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_module::FuncId as ClifFuncId;

use super::{CodeOwner, CodegenError, Deferred, ModuleState, compile_one, define_compiled};
use crate::kernel::KernelCode;

/// Vectorized functions of at least this many Cranelift instructions (as lowered, before
/// the mid-end) are compiled late. The bench's program: the ray tracer's row (1057), 2D
/// convolution's (756), Mandelbrot's (362), naive SGEMM's (355), n-body's (244) and the
/// largest regions of the tiled SGEMM and the reduction (219, 222) are; vector add's (55)
/// and the other small ones are compiled at once, so the first launch of a simple kernel
/// is vectorized.
pub(super) const LATE_ROW_INSTS: usize = 200;

/// The environment variable that compiles every row before the build returns (`0`).
pub const DEFER_VAR: &str = "CLIFT_DEFER_ROWS";

/// Whether `CLIFT_DEFER_ROWS` lets builds defer large vectorized rows (anything but `0`;
/// read once).
pub fn defer_rows_from_env() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| defer_rows(std::env::var(DEFER_VAR).ok().as_deref()))
}

/// Whether a `CLIFT_DEFER_ROWS` of `value` (`None`: unset) lets builds defer.
fn defer_rows(value: Option<&str>) -> bool {
    value != Some("0")
}

/// How the work-group function calls a vectorized row or region function.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RowCall {
    /// Directly: the function is compiled with the program.
    Direct(ClifFuncId),
    /// Through the slot at this address (an `AtomicUsize` holding the function's address).
    Slot(usize),
}

/// The row every slot holds until its function is compiled: it runs no item, so the scalar
/// row (which starts at the local id returned) runs them all.
extern "C" fn no_items(_item: *const u8) -> u64 {
    0
}

/// [`no_items`]'s address, what a slot holds until its row is installed.
fn stub_address() -> usize {
    no_items as *const () as usize
}

/// A late row's slot: the address of its function, or of [`no_items`] until it is
/// installed. Boxed: the work-group function holds the slot's address, which must not move
/// when the list of slots grows.
struct Slot {
    address: Box<AtomicUsize>,
    /// The kernel whose work-group function reads it.
    kernel: String,
}

impl Slot {
    fn installed(&self) -> bool {
        self.address.load(Ordering::Acquire) != stub_address()
    }
}

/// The late rows of a build being lowered, and their slots (slot `i` is row `i`'s).
#[derive(Default)]
pub(crate) struct LateRows {
    /// The pool the late rows compile on; `None`: every row is compiled with the program.
    pool: Option<Arc<rayon::ThreadPool>>,
    rows: Vec<Deferred>,
    slots: Vec<Slot>,
}

impl LateRows {
    /// Late rows for a build that may defer (`defer`): on the build pool, unless machine
    /// code is dumped or no pool can start.
    pub(super) fn new(defer: bool) -> LateRows {
        let pool = if defer && !super::dump::wants_machine_code() {
            super::pool::build_pool()
        } else {
            None
        };
        LateRows {
            pool,
            ..LateRows::default()
        }
    }
}

/// How the work-group function of `kernel` calls the vectorized function `id` (queued in
/// `state.deferred`): through a new slot if it is large and the build defers, the function
/// moving to the late rows; else directly.
pub(super) fn row_call(state: &mut ModuleState, id: ClifFuncId, kernel: &str) -> RowCall {
    if state.late.pool.is_none() {
        return RowCall::Direct(id);
    }
    let Some(at) = state.deferred.iter().position(|d| d.id == id) else {
        return RowCall::Direct(id);
    };
    if state.deferred[at].ctx.func.dfg.num_insts() < LATE_ROW_INSTS {
        return RowCall::Direct(id);
    }
    let row = state.deferred.remove(at);
    let slot = Slot {
        address: Box::new(AtomicUsize::new(stub_address())),
        kernel: kernel.to_string(),
    };
    let address = &*slot.address as *const AtomicUsize as usize;
    state.late.rows.push(row);
    state.late.slots.push(slot);
    RowCall::Slot(address)
}

/// What the program's code owner keeps of its late rows.
pub(super) struct Progress {
    /// The slots the work-group functions read (their addresses are in the code).
    slots: Vec<Slot>,
    /// Whether the late compile has ended (every row installed, or given up): a launch's
    /// check is then this one load.
    ended: AtomicBool,
    /// Taken to wait for a row; notified at each row installed and at the end.
    lock: Mutex<()>,
    changed: Condvar,
}

impl Progress {
    /// Wakes the waiters after a row is installed, or (`ended`) at the end.
    fn notify(&self, ended: bool) {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        if ended {
            self.ended.store(true, Ordering::Release);
        }
        self.changed.notify_all();
    }

    /// Whether a late row of `kernel` is still to come.
    fn pending(&self, kernel: &str) -> bool {
        !self.ended.load(Ordering::Acquire)
            && self
                .slots
                .iter()
                .any(|s| s.kernel == kernel && !s.installed())
    }

    fn wait(&self, kernel: &str) {
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while self.pending(kernel) {
            guard = self
                .changed
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Splits the late rows into what the code owner keeps (the slots) and the work left:
/// `None` where there is none.
pub(super) fn progress(late: LateRows) -> (Progress, Option<Work>) {
    let ended = late.rows.is_empty();
    let progress = Progress {
        slots: late.slots,
        ended: AtomicBool::new(ended),
        lock: Mutex::new(()),
        changed: Condvar::new(),
    };
    let work = match late.pool {
        Some(pool) if !ended => Some(Work {
            pool,
            rows: late.rows,
        }),
        _ => None,
    };
    (progress, work)
}

/// Late rows to compile.
pub(super) struct Work {
    pool: Arc<rayon::ThreadPool>,
    rows: Vec<Deferred>,
}

/// Late compiles started and not yet ended (installed, given up or abandoned).
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// The late compiles of this process that have not ended yet (for tests: a released
/// program's compile ends too).
pub fn late_compiles_running() -> usize {
    RUNNING.load(Ordering::Acquire)
}

/// Held by [`hold_late_rows`]: late rows are compiled but not installed while it is.
static HOLD: RwLock<()> = RwLock::new(());

/// For tests: until the guard is dropped, late rows are compiled but neither installed nor
/// abandoned (launches meanwhile run the scalar rows), so a test can launch, or release the
/// program, while the compile is surely not done.
pub fn hold_late_rows() -> RwLockWriteGuard<'static, ()> {
    HOLD.write().unwrap_or_else(PoisonError::into_inner)
}

/// Compiles `work` on its pool, each row installed in `owner`'s module and slot as soon as
/// it is compiled (unless the program is released by then).
pub(super) fn compile_later(
    owner: &Arc<CodeOwner>,
    work: Work,
    isas: (OwnedTargetIsa, OwnedTargetIsa),
    scheduled: bool,
) {
    let weak = Arc::downgrade(owner);
    let pool = Arc::clone(&work.pool);
    RUNNING.fetch_add(1, Ordering::AcqRel);
    pool.spawn(move || {
        let Work { pool, mut rows } = work;
        // Largest first, one row per task, as the build's own queue.
        let mut order: Vec<(usize, &mut Deferred)> = rows.iter_mut().enumerate().collect();
        order.sort_by_key(|(_, d)| std::cmp::Reverse(d.ctx.func.dfg.num_insts()));
        pool.install(|| {
            use rayon::prelude::*;
            order.into_par_iter().with_max_len(1).for_each(|(slot, d)| {
                // A panic in Cranelift leaves the stub (rayon would abort the process).
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    finish(&weak, slot, d, &isas, scheduled);
                }));
            });
        });
        // Waiters wake whatever happened; a released program has none.
        if let Some(owner) = weak.upgrade() {
            owner.late.notify(true);
        }
        RUNNING.fetch_sub(1, Ordering::AcqRel);
    });
}

/// Compiles the row of slot `slot`, then defines it in the owner's module and stores its
/// address in the slot; nothing when the program is released before.
fn finish(
    owner: &Weak<CodeOwner>,
    slot: usize,
    row: &mut Deferred,
    (isa, lowering_isa): &(OwnedTargetIsa, OwnedTargetIsa),
    scheduled: bool,
) {
    // Released before the compile started: nothing to do.
    if owner.strong_count() == 0 {
        return;
    }
    let compiled = compile_one(row, (&**isa, &**lowering_isa), scheduled);
    let _hold = HOLD.read().unwrap_or_else(PoisonError::into_inner);
    let Some(owner) = owner.upgrade() else {
        return;
    };
    // A row that cannot be compiled or defined keeps the stub: the scalar row is correct
    // alone.
    if compiled.is_ok() && install(&owner, slot, row).is_ok() {
        owner.late.notify(false);
    }
}

/// Defines the compiled `row` in `owner`'s module, finalizes it and publishes its address
/// in slot `slot`.
fn install(owner: &CodeOwner, slot: usize, row: &Deferred) -> Result<(), CodegenError> {
    let mut guard = owner.module.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(module) = guard.as_mut() else {
        return Ok(());
    };
    define_compiled(module, row)?;
    module
        .finalize_definitions()
        .map_err(|e| CodegenError(format!("finalizing {}: {e}", row.what)))?;
    owner.late.slots[slot].address.store(
        module.get_finalized_function(row.id) as usize,
        Ordering::Release,
    );
    Ok(())
}

/// The late rows of `kernel`'s program, if it is a compiled one.
fn progress_of(kernel: &KernelCode) -> Option<&Progress> {
    let owner = kernel.code_owner.as_deref()?;
    (owner as &dyn std::any::Any)
        .downcast_ref::<CodeOwner>()
        .map(|o| &o.late)
}

/// Whether some late row of `kernel` is still being compiled (its launches run the scalar
/// row there).
pub fn late_rows_pending(kernel: &KernelCode) -> bool {
    progress_of(kernel).is_some_and(|p| p.pending(&kernel.name))
}

/// Waits until every late row of `kernel` is installed (or given up). One atomic load
/// where the program's late compile has ended.
pub fn wait_for_late_rows(kernel: &KernelCode) {
    if let Some(p) = progress_of(kernel)
        && !p.ended.load(Ordering::Acquire)
    {
        p.wait(&kernel.name);
    }
}

/// The number of late-row slots of `kernel`'s program that still hold the stub.
pub fn stub_rows(kernel: &KernelCode) -> usize {
    progress_of(kernel).map_or(0, |p| p.slots.iter().filter(|s| !s.installed()).count())
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_zero_compiles_every_row_in_the_build() {
        assert!(super::defer_rows(None));
        assert!(super::defer_rows(Some("1")));
        assert!(super::defer_rows(Some("")));
        assert!(!super::defer_rows(Some("0")));
    }
}
