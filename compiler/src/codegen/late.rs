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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock, RwLockWriteGuard, Weak};

use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_module::FuncId as ClifFuncId;

use super::{CodeOwner, CodegenError, Deferred, ModuleState, compile_queue, define_compiled};
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
struct Slot(Box<AtomicUsize>);

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

/// How the work-group function calls the vectorized function `id` (queued in
/// `state.deferred`): through a new slot if it is large and the build defers, the function
/// moving to the late rows; else directly.
pub(super) fn row_call(state: &mut ModuleState, id: ClifFuncId) -> RowCall {
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
    let slot = Slot(Box::new(AtomicUsize::new(stub_address())));
    let address = &*slot.0 as *const AtomicUsize as usize;
    state.late.rows.push(row);
    state.late.slots.push(slot);
    RowCall::Slot(address)
}

/// What the program's code owner keeps of its late rows.
pub(super) struct Progress {
    /// The slots the work-group functions read (their addresses are in the code).
    slots: Vec<Slot>,
    /// Whether every late row is installed, or given up.
    done: Mutex<bool>,
    finished: Condvar,
}

impl Progress {
    fn finish(&self) {
        *self.done.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.finished.notify_all();
    }

    fn is_done(&self) -> bool {
        *self.done.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait(&self) {
        let mut done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
        while !*done {
            done = self
                .finished
                .wait(done)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Splits the late rows into what the code owner keeps (the slots) and the work left:
/// `None` where there is none.
pub(super) fn progress(late: LateRows) -> (Progress, Option<Work>) {
    let done = late.rows.is_empty();
    let progress = Progress {
        slots: late.slots,
        done: Mutex::new(done),
        finished: Condvar::new(),
    };
    let work = match late.pool {
        Some(pool) if !done => Some(Work {
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

/// Compiles `work` on its pool, then installs it in `owner`'s module and slots (unless the
/// program is released by then).
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
        // A panic in Cranelift leaves the stubs (rayon would abort the process).
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            finish(&weak, &mut rows, &isas, scheduled, &pool);
        }));
        // Waiters wake whatever happened; a released program has none.
        if let Some(owner) = weak.upgrade() {
            owner.late.finish();
        }
        RUNNING.fetch_sub(1, Ordering::AcqRel);
    });
}

/// Compiles `rows`, then defines them in the owner's module and stores their addresses in
/// its slots; nothing when the program is released before.
fn finish(
    owner: &Weak<CodeOwner>,
    rows: &mut [Deferred],
    (isa, lowering_isa): &(OwnedTargetIsa, OwnedTargetIsa),
    scheduled: bool,
    pool: &rayon::ThreadPool,
) {
    // Released before the compile started: nothing to do.
    if owner.strong_count() == 0 {
        return;
    }
    let compiled = compile_queue(rows, (&**isa, &**lowering_isa), scheduled, Some(pool));
    let _hold = HOLD.read().unwrap_or_else(PoisonError::into_inner);
    let Some(owner) = owner.upgrade() else {
        return;
    };
    if compiled.is_ok() {
        // A row that cannot be defined keeps the stub: the scalar row is correct alone.
        let _ = install(&owner, rows);
    }
}

/// Defines the compiled `rows` in `owner`'s module, finalizes them and publishes their
/// addresses.
fn install(owner: &CodeOwner, rows: &[Deferred]) -> Result<(), CodegenError> {
    let mut guard = owner.module.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(module) = guard.as_mut() else {
        return Ok(());
    };
    for d in rows {
        define_compiled(module, d)?;
    }
    module
        .finalize_definitions()
        .map_err(|e| CodegenError(format!("finalizing the late rows: {e}")))?;
    for (slot, d) in owner.late.slots.iter().zip(rows) {
        slot.0.store(
            module.get_finalized_function(d.id) as usize,
            Ordering::Release,
        );
    }
    Ok(())
}

/// The late rows of `kernel`'s program, if it is a compiled one.
fn progress_of(kernel: &KernelCode) -> Option<&Progress> {
    let owner = kernel.code_owner.as_deref()?;
    (owner as &dyn std::any::Any)
        .downcast_ref::<CodeOwner>()
        .map(|o| &o.late)
}

/// Whether some late row of `kernel`'s program is still being compiled (its launches run
/// the scalar row there).
pub fn late_rows_pending(kernel: &KernelCode) -> bool {
    progress_of(kernel).is_some_and(|p| !p.is_done())
}

/// Waits until every late row of `kernel`'s program is installed (or given up).
pub fn wait_for_late_rows(kernel: &KernelCode) {
    if let Some(p) = progress_of(kernel) {
        p.wait();
    }
}

/// The number of late-row slots of `kernel`'s program that still hold the stub.
pub fn stub_rows(kernel: &KernelCode) -> usize {
    progress_of(kernel).map_or(0, |p| {
        p.slots
            .iter()
            .filter(|s| s.0.load(Ordering::Acquire) == stub_address())
            .count()
    })
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
