//! Kernel faults become errors: a work-group function that faults (an invalid memory access,
//! a stack overflow, a trap) returns to the worker with a [`Fault`] instead of killing the
//! process. x86-64 Linux only; on other targets a fault stays fatal, as it is for every other
//! CPU driver.
//!
//! The design is Wasmtime's for WebAssembly:
//!
//! - The JIT registers the address range of every function it emits
//!   (`clift_compiler::jit::code_ranges`).
//! - [`call`] runs a work-group function through a small trampoline that first records a
//!   resume point: its stack pointer and the address of its landing pad (the callee-saved
//!   registers sit in the trampoline's own frame, below that stack pointer). A thread-local
//!   points at the record while the kernel runs.
//! - A process-wide handler for SIGSEGV, SIGBUS, SIGILL (Cranelift's traps, the watchdog's
//!   stop) and SIGFPE, installed at the first launch and run on an alternate signal stack
//!   (each thread that runs kernels gets one if it has none, so a stack overflow can be
//!   handled), looks at the faulting instruction: if it lies in JIT code and the thread has
//!   a resume point, the handler rewrites the interrupted context (instruction pointer to
//!   the landing pad, stack pointer to the recorded one, a nonzero return value) and
//!   returns; the kernel's frames are discarded and the trampoline returns "faulted".
//!   Any other fault is passed on to the handler that was installed before clift's, or to
//!   the default action (the process ends as it would have without clift).
//!
//! Why discarding the kernel's frames is safe: JIT frames own nothing (no destructors, no
//! locks; atomics are single instructions and printf reserves its space with one). The fault
//! must be *in* JIT code, so no Rust frame (a builtin the kernel called, holding who knows
//! what) lies between the trampoline and the faulting instruction: a fault inside a builtin
//! stays fatal. What a kernel wrote before faulting stays written; the work-groups that had
//! not started are skipped.

/// How a kernel call ended abnormally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The signal (`SIGSEGV`, `SIGBUS`, `SIGILL`, `SIGFPE`).
    pub signal: i32,
    /// The faulting address (for `SIGILL` and `SIGFPE`, the instruction's).
    pub address: usize,
    /// The faulting instruction.
    pub pc: usize,
    /// Whether the address lies in the guard region below the thread's stack.
    pub stack_overflow: bool,
}

impl Fault {
    /// What happened, for the message: "invalid memory access at 0x10 (SIGSEGV)".
    pub fn describe(&self) -> String {
        let what = match self.signal {
            _ if self.stack_overflow => {
                "stack overflow (private memory and calls exceed \
                                         the worker's stack) at"
            }
            SIGSEGV => "invalid memory access at address",
            SIGBUS => "bus error (misaligned or unmapped memory) at address",
            SIGILL => "trap at",
            SIGFPE => "arithmetic fault at",
            _ => "fault at",
        };
        format!(
            "{what} {:#x} ({}, instruction at {:#x})",
            self.address,
            signal_name(self.signal),
            self.pc
        )
    }
}

const SIGSEGV: i32 = 11;
const SIGBUS: i32 = 7;
const SIGILL: i32 = 4;
const SIGFPE: i32 = 8;

fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGSEGV => "SIGSEGV",
        SIGBUS => "SIGBUS",
        SIGILL => "SIGILL",
        SIGFPE => "SIGFPE",
        _ => "signal",
    }
}

/// Whether kernel faults are recovered on this target.
pub const RECOVERS: bool = cfg!(all(target_arch = "x86_64", target_os = "linux"));

pub use imp::{Guard, call, with_guard};

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod imp {
    use std::cell::{Cell, OnceCell};
    use std::ffi::{c_int, c_void};
    use std::ptr::{null, null_mut};
    use std::sync::{Once, OnceLock};

    use clift_compiler::kernel::{WorkGroup, WorkGroupFn};

    use super::Fault;

    // The signal numbers of x86-64 Linux, which the descriptions above use.
    const _: () = assert!(
        libc::SIGSEGV == super::SIGSEGV
            && libc::SIGBUS == super::SIGBUS
            && libc::SIGILL == super::SIGILL
            && libc::SIGFPE == super::SIGFPE
    );

    /// The resume point of the kernel call running on this thread. The trampoline writes
    /// `sp` and `landing` (at these offsets); the handler writes `fault`.
    #[repr(C)]
    struct Resume {
        sp: usize,
        landing: usize,
        fault: Fault,
    }

    /// What a thread that runs kernels keeps: one thread-local (no destructor, so each
    /// access is a plain TLS load), read once per work-group.
    struct ThreadState {
        /// The resume point of the kernel this thread runs, or null.
        current: Cell<*mut Resume>,
        /// Whether the handlers are installed and this thread has an alternate stack.
        ready: Cell<bool>,
    }

    thread_local! {
        static STATE: ThreadState = const {
            ThreadState {
                current: Cell::new(null_mut()),
                ready: Cell::new(false),
            }
        };
        /// The alternate signal stack clift gave this thread (`None`: it had one).
        static ALT_STACK: OnceCell<Option<AltStack>> = const { OnceCell::new() };
    }

    /// Done once per thread: the process's handlers, and this thread's alternate stack.
    #[cold]
    fn prepare_thread() {
        install_handlers();
        ALT_STACK.with(|s| {
            s.get_or_init(AltStack::ensure);
        });
    }

    /// Calls the work-group function `entry` with `args` and `group`; a fault in its code
    /// comes back as `Err`.
    ///
    /// # Safety
    /// As for calling `entry` directly: a work-group function compiled for this argument
    /// block and group.
    pub unsafe fn call(
        entry: WorkGroupFn,
        args: *const u8,
        group: *const WorkGroup,
    ) -> Result<(), Fault> {
        STATE.with(|state| {
            if !state.ready.get() {
                prepare_thread();
                state.ready.set(true);
            }
            // SAFETY: the caller's contract.
            unsafe { call_on(state, entry, args, group) }
        })
    }

    /// The thread's fault state, looked up once for a run of calls: a thread-local in a
    /// shared library is a call to `__tls_get_addr`, which per work-group costs as much as
    /// an empty kernel.
    pub struct Guard<'a>(&'a ThreadState);

    /// Runs `f` with this thread's [`Guard`] (the handlers installed first).
    pub fn with_guard<R>(f: impl FnOnce(&Guard<'_>) -> R) -> R {
        STATE.with(|state| {
            if !state.ready.get() {
                prepare_thread();
                state.ready.set(true);
            }
            f(&Guard(state))
        })
    }

    impl Guard<'_> {
        /// [`call`] on this guard's thread.
        ///
        /// # Safety
        /// As for [`call`].
        pub unsafe fn call(
            &self,
            entry: WorkGroupFn,
            args: *const u8,
            group: *const WorkGroup,
        ) -> Result<(), Fault> {
            // SAFETY: the caller's contract.
            unsafe { call_on(self.0, entry, args, group) }
        }
    }

    /// [`call`] with this thread's state at hand.
    ///
    /// # Safety
    /// As for [`call`].
    unsafe fn call_on(
        state: &ThreadState,
        entry: WorkGroupFn,
        args: *const u8,
        group: *const WorkGroup,
    ) -> Result<(), Fault> {
        let mut resume = Resume {
            sp: 0,
            landing: 0,
            fault: Fault {
                signal: 0,
                address: 0,
                pc: 0,
                stack_overflow: false,
            },
        };
        let resume_ptr: *mut Resume = &mut resume;
        let outer = state.current.replace(resume_ptr);
        // SAFETY: `guarded_call` calls `entry(args, group)` (the caller's contract) after
        // storing the resume point into `resume_ptr`, which stays valid across the call.
        let faulted = unsafe { guarded_call(entry as usize, args, group, resume_ptr) };
        state.current.set(outer);
        if faulted == 0 {
            return Ok(());
        }
        // SAFETY: the handler wrote the record behind the compiler's back; read it afresh.
        let mut fault = unsafe { std::ptr::read_volatile(&raw const (*resume_ptr).fault) };
        fault.stack_overflow = below_stack(fault.address);
        Err(fault)
    }

    /// Calls `entry(args, group)` after storing the resume point in `resume`: the stack
    /// pointer at the call, and the landing pad the signal handler resumes at, which returns
    /// 1 (a normal return gives 0). The callee-saved registers are pushed here and popped by
    /// the shared epilogue, so the handler need not restore them.
    #[unsafe(naked)]
    unsafe extern "sysv64" fn guarded_call(
        entry: usize,
        args: *const u8,
        group: *const WorkGroup,
        resume: *mut Resume,
    ) -> u32 {
        core::arch::naked_asm!(
            "push rbp",
            "push rbx",
            "push r12",
            "push r13",
            "push r14",
            "push r15",
            // Six pushes after the return address: 8 more bytes align the call to 16.
            "sub rsp, 8",
            "mov [rcx], rsp",
            "lea rax, [rip + 2f]",
            "mov [rcx + 8], rax",
            "mov rax, rdi",
            "mov rdi, rsi",
            "mov rsi, rdx",
            "call rax",
            "xor eax, eax",
            "2:",
            "add rsp, 8",
            "pop r15",
            "pop r14",
            "pop r13",
            "pop r12",
            "pop rbx",
            "pop rbp",
            "ret",
        )
    }

    const SIGNALS: [c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE];

    /// The handlers installed before clift's, one per signal of [`SIGNALS`].
    struct Previous([libc::sigaction; 4]);
    // SAFETY: plain data (function addresses, flags, a signal mask), written once.
    unsafe impl Sync for Previous {}
    // SAFETY: as above.
    unsafe impl Send for Previous {}

    static PREVIOUS: OnceLock<Previous> = OnceLock::new();

    fn install_handlers() {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            // SAFETY: `sigaction` with valid pointers; the previous handlers are saved
            // before ours replaces them, so a fault elsewhere can always be passed on.
            unsafe {
                let mut previous: [libc::sigaction; 4] = std::mem::zeroed();
                for (old, &signal) in previous.iter_mut().zip(&SIGNALS) {
                    libc::sigaction(signal, null(), old);
                }
                let _ = PREVIOUS.set(Previous(previous));
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                for &signal in &SIGNALS {
                    libc::sigaction(signal, &action, null_mut());
                }
            }
        });
    }

    /// The signal handler: resumes a faulting kernel at its landing pad, passes on anything
    /// else. Only async-signal-safe work: thread-local reads, the code registry's
    /// `try_read`, plain stores, `sigaction`.
    unsafe extern "C" fn on_signal(
        signal: c_int,
        info: *mut libc::siginfo_t,
        context: *mut c_void,
    ) {
        // SAFETY: with SA_SIGINFO the kernel passes a `ucontext_t` as the third argument.
        let uc = unsafe { &mut *context.cast::<libc::ucontext_t>() };
        let regs = &mut uc.uc_mcontext.gregs;
        let pc = regs[libc::REG_RIP as usize] as usize;
        // The code registry first: a fault elsewhere must not touch clift's thread-locals,
        // whose first use on a thread may allocate (the fault could be inside malloc).
        // JIT code only runs inside `call`, which has used them already.
        if !clift_compiler::jit::code_ranges::contains(pc) {
            // SAFETY: the arguments are the kernel's, passed on unchanged.
            unsafe { pass_on(signal, info, context) };
            return;
        }
        let resume = STATE.with(|s| s.current.get());
        if !resume.is_null() {
            // SAFETY: `resume` is the live record of `call` on this thread's stack, and
            // `info` is the kernel's siginfo for this signal.
            unsafe {
                (*resume).fault = Fault {
                    signal,
                    address: (*info).si_addr() as usize,
                    pc,
                    stack_overflow: false,
                };
                regs[libc::REG_RSP as usize] = (*resume).sp as i64;
                regs[libc::REG_RIP as usize] = (*resume).landing as i64;
            }
            regs[libc::REG_RAX as usize] = 1;
            return;
        }
        // SAFETY: the arguments are the kernel's, passed on unchanged.
        unsafe { pass_on(signal, info, context) };
    }

    /// Hands a fault that is not a kernel's to the handler installed before clift's, or
    /// restores the default action so that the faulting instruction, run again, ends the
    /// process as it would have without clift.
    unsafe fn pass_on(signal: c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
        let previous = PREVIOUS
            .get()
            .and_then(|p| SIGNALS.iter().position(|&s| s == signal).map(|i| &p.0[i]));
        match previous {
            Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
                // SAFETY: the previous handler, called as its flags say it expects.
                unsafe {
                    if p.sa_flags & libc::SA_SIGINFO != 0 {
                        let f: extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) =
                            std::mem::transmute(p.sa_sigaction);
                        f(signal, info, context);
                    } else {
                        let f: extern "C" fn(c_int) = std::mem::transmute(p.sa_sigaction);
                        f(signal);
                    }
                }
            }
            _ => {
                // SAFETY: `sigaction` and `raise` are async-signal-safe; `info` is valid.
                unsafe {
                    let mut default: libc::sigaction = std::mem::zeroed();
                    default.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(signal, &default, null_mut());
                    // A signal sent by a process (not a fault) would not come again by
                    // itself: send it again (blocked until this handler returns).
                    if (*info).si_code <= 0 {
                        libc::raise(signal);
                    }
                }
            }
        }
    }

    /// An alternate signal stack clift mapped for a thread that had none (a stack
    /// overflow can only be handled on another stack). Unmapped when the thread ends.
    struct AltStack {
        base: *mut c_void,
        len: usize,
    }

    /// Its usable size: room for clift's handler and one passed-on handler.
    const ALT_STACK_SIZE: usize = 64 << 10;

    impl AltStack {
        fn ensure() -> Option<AltStack> {
            // SAFETY: `sigaltstack`, `mmap` and `mprotect` with valid arguments; the new
            // mapping is owned by the returned value.
            unsafe {
                let mut old: libc::stack_t = std::mem::zeroed();
                if libc::sigaltstack(null(), &mut old) == 0 && old.ss_flags & libc::SS_DISABLE == 0
                {
                    return None;
                }
                let page = page_size();
                let len = ALT_STACK_SIZE + page;
                let base = libc::mmap(
                    null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                if base == libc::MAP_FAILED {
                    return None;
                }
                // A guard page below it: a handler that overflows faults instead of writing
                // into whatever is mapped there.
                libc::mprotect(base, page, libc::PROT_NONE);
                let stack = libc::stack_t {
                    ss_sp: base.cast::<u8>().add(page).cast(),
                    ss_flags: 0,
                    ss_size: ALT_STACK_SIZE,
                };
                if libc::sigaltstack(&stack, null_mut()) != 0 {
                    libc::munmap(base, len);
                    return None;
                }
                Some(AltStack { base, len })
            }
        }
    }

    impl Drop for AltStack {
        fn drop(&mut self) {
            // SAFETY: the stack is disabled before it is unmapped; nothing runs on it now
            // (this is the thread's own exit path, not a handler).
            unsafe {
                let disable = libc::stack_t {
                    ss_sp: null_mut(),
                    ss_flags: libc::SS_DISABLE,
                    ss_size: 0,
                };
                libc::sigaltstack(&disable, null_mut());
                libc::munmap(self.base, self.len);
            }
        }
    }

    fn page_size() -> usize {
        // SAFETY: `sysconf` has no preconditions.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(size).unwrap_or(4096).max(4096)
    }

    /// Whether `address` lies just below this thread's stack, in its guard region (one page
    /// where the thread reports none): the fault of a stack overflow.
    fn below_stack(address: usize) -> bool {
        // SAFETY: `pthread_getattr_np` fills `attr` for the calling thread, which is then
        // destroyed; the outputs are plain values.
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
                return false;
            }
            let (mut low, mut size, mut guard) = (null_mut(), 0usize, 0usize);
            let ok = libc::pthread_attr_getstack(&attr, &mut low, &mut size) == 0
                && libc::pthread_attr_getguardsize(&attr, &mut guard) == 0;
            libc::pthread_attr_destroy(&mut attr);
            let low = low as usize;
            // The guard region only: it lies inside the stack's own mapping, so no other
            // mapping (a buffer's guard page just below the stack, say) is taken for it.
            // Stack probes touch each page in turn, so an overflow faults there first.
            let reach = if guard > 0 { guard } else { page_size() };
            ok && address < low && address >= low.saturating_sub(reach)
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod imp {
    use clift_compiler::kernel::{WorkGroup, WorkGroupFn};

    use super::Fault;

    /// Calls the work-group function; on this target a fault ends the process.
    ///
    /// # Safety
    /// As for calling `entry` directly.
    pub unsafe fn call(
        entry: WorkGroupFn,
        args: *const u8,
        group: *const WorkGroup,
    ) -> Result<(), Fault> {
        // SAFETY: the caller's contract.
        unsafe { entry(args, group) };
        Ok(())
    }

    /// A run of calls (nothing to look up on this target).
    pub struct Guard<'a>(std::marker::PhantomData<&'a ()>);

    pub fn with_guard<R>(f: impl FnOnce(&Guard<'_>) -> R) -> R {
        f(&Guard(std::marker::PhantomData))
    }

    impl Guard<'_> {
        /// [`call`].
        ///
        /// # Safety
        /// As for [`call`].
        pub unsafe fn call(
            &self,
            entry: WorkGroupFn,
            args: *const u8,
            group: *const WorkGroup,
        ) -> Result<(), Fault> {
            // SAFETY: the caller's contract.
            unsafe { call(entry, args, group) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clift_compiler::kernel::WorkGroup;

    unsafe extern "C" fn nothing(_args: *const u8, _group: *const WorkGroup) {}

    #[test]
    #[ignore = "a measurement: cargo test --release -p clift-runtime fault -- --ignored --nocapture"]
    fn cost_of_a_guarded_call() {
        let n = 20_000_000;
        for _ in 0..3 {
            let started = std::time::Instant::now();
            for _ in 0..n {
                // SAFETY: `nothing` ignores its arguments.
                let r = unsafe { call(nothing, std::ptr::null(), std::ptr::null()) };
                assert!(r.is_ok());
            }
            let guarded = started.elapsed().as_secs_f64() / n as f64 * 1e9;
            let started = std::time::Instant::now();
            for _ in 0..n {
                let f = std::hint::black_box(nothing as clift_compiler::kernel::WorkGroupFn);
                // SAFETY: as above.
                unsafe { f(std::ptr::null(), std::ptr::null()) };
            }
            let direct = started.elapsed().as_secs_f64() / n as f64 * 1e9;
            println!("guarded call {guarded:.2} ns, direct call {direct:.2} ns");
        }
    }
}
