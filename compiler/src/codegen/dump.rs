//! `CLIFT_DUMP_CLIF`: prints the Cranelift IR of every function compiled, and its machine
//! code (disassembled) with its size, to stderr (documented in docs/ENVIRONMENT.md).
//!
//! A tool (`cliftc --emit clif|asm`) can instead [`collect`] the same texts for the builds of
//! its process and print them itself; a test [`capture`]s those of the builds its own thread
//! runs, with the typed tree after each stage ([`tree`], `CLIFT_DUMP_TIR`).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use cranelift_codegen::Context;
use cranelift_codegen::ir::Function;

use crate::frontend::{tir, tir_print};

/// The environment variable that turns the dump on (any non-empty value but `0`).
pub const DUMP_VAR: &str = "CLIFT_DUMP_CLIF";

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    super::env_flag(DUMP_VAR, &ON)
}

/// Whether [`collect`] was called: texts go to [`COLLECTED`] instead of stderr.
static COLLECTING: AtomicBool = AtomicBool::new(false);

/// The texts collected so far: (function name, IR) and (function name, machine code).
static COLLECTED: Mutex<Collected> = Mutex::new(Collected {
    clif: Vec::new(),
    asm: Vec::new(),
    tir: Vec::new(),
});

thread_local! {
    /// What [`capture`] gathers from the builds of this thread.
    static CAPTURED: RefCell<Option<Collected>> = const { RefCell::new(None) };
}

/// What [`collect`] gathered, each list sorted by function name (functions are compiled in
/// parallel, so the order they finish in varies).
#[derive(Debug, Default)]
pub struct Collected {
    pub clif: Vec<(String, String)>,
    pub asm: Vec<(String, String)>,
    /// (stage, typed tree after it), in the order the stages ran (only a [`capture`] keeps
    /// these).
    pub tir: Vec<(String, String)>,
}

/// Gathers the texts of the builds this thread runs until [`Capture::finish`]: the typed
/// tree after each stage and the IR of each function (no machine code). Other threads'
/// builds are not seen, so tests that run in parallel each get their own.
pub fn capture() -> Capture {
    CAPTURED.with(|c| *c.borrow_mut() = Some(Collected::default()));
    Capture(())
}

/// A [`capture`] in progress; dropping it stops the capture.
pub struct Capture(());

impl Capture {
    /// The texts gathered, the IR sorted by function name.
    pub fn finish(self) -> Collected {
        let mut collected = CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default();
        collected.clif.sort_by(|a, b| a.0.cmp(&b.0));
        collected
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        CAPTURED.with(|c| c.borrow_mut().take());
    }
}

/// Runs `keep` on this thread's capture, if one is on; says whether one was.
fn captured(keep: impl FnOnce(&mut Collected)) -> bool {
    CAPTURED.with(|c| c.borrow_mut().as_mut().map(keep).is_some())
}

/// `CLIFT_DUMP_TIR`: the typed tree after each stage of a build, to stderr.
fn tree_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    super::env_flag("CLIFT_DUMP_TIR", &ON)
}

/// The typed tree after `stage` (`sema`, then each middle-layer pass): kept by a
/// [`capture`], printed with `CLIFT_DUMP_TIR`.
pub fn tree(stage: &str, program: &tir::Program) {
    stage_text(stage, || tir_print::print(program));
}

/// A stage's text other than a tree (an analysis' result, such as the uniform variables).
pub fn stage_text(stage: &str, text: impl FnOnce() -> String) {
    let mut text = Some(text);
    let kept = captured(|c| {
        if let Some(text) = text.take() {
            c.tir.push((stage.to_string(), text()));
        }
    });
    if !kept
        && tree_enabled()
        && let Some(text) = text.take()
    {
        eprintln!("; clift: typed tree after {stage}\n{}", text());
    }
}

/// Whether a stage's text is wanted (so that an analysis run only for it can be skipped).
pub fn stages_wanted() -> bool {
    captured(|_| {}) || tree_enabled()
}

/// From now on, every build of this process keeps its IR and machine code for [`take`].
pub fn collect() {
    COLLECTING.store(true, Ordering::Relaxed);
}

/// The texts collected since the last call.
pub fn take() -> Collected {
    let mut collected = std::mem::take(&mut *COLLECTED.lock().unwrap_or_else(|e| e.into_inner()));
    collected.clif.sort_by(|a, b| a.0.cmp(&b.0));
    collected.asm.sort_by(|a, b| a.0.cmp(&b.0));
    collected
}

/// Runs `build` with collection on and returns the texts gathered meanwhile. Callers take
/// turns, so a test never takes (and loses) another test's texts between that test's build
/// and its [`take`]; builds that are not collecting may still add theirs while `build` runs,
/// so find yours by function name.
pub fn collect_during(build: impl FnOnce()) -> Collected {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    collect();
    drop(take());
    build();
    take()
}

fn collecting() -> bool {
    COLLECTING.load(Ordering::Relaxed)
}

/// Prints a function's IR before it is compiled.
pub fn function(name: &str, func: &Function) {
    if captured(|c| c.clif.push((name.to_string(), func.display().to_string()))) {
        return;
    }
    if collecting() {
        let text = func.display().to_string();
        let mut collected = COLLECTED.lock().unwrap_or_else(|e| e.into_inner());
        collected.clif.push((name.to_string(), text));
    } else if enabled() {
        eprintln!("; clift: {name}\n{}", func.display());
    }
}

/// Asks Cranelift to keep the machine code's text (its disassembly) when the dump is on.
pub fn request_disassembly(ctx: &mut Context) {
    if enabled() || collecting() {
        ctx.set_disasm(true);
    }
}

/// Whether the machine code of each function is printed or collected (a build that
/// dumps it compiles every function before it returns: `late`).
pub(super) fn wants_machine_code() -> bool {
    enabled() || collecting()
}

/// Prints the machine code just generated (Cranelift's disassembly of it) and its size.
pub fn machine_code(name: &str, ctx: &Context) {
    if !(enabled() || collecting()) {
        return;
    }
    if let Some(code) = ctx.compiled_code() {
        let text = format!(
            "; {} bytes of machine code\n{}",
            code.code_buffer().len(),
            code.vcode.as_deref().unwrap_or("")
        );
        if collecting() {
            let mut collected = COLLECTED.lock().unwrap_or_else(|e| e.into_inner());
            collected.asm.push((name.to_string(), text));
        } else {
            eprintln!("; clift: {name}: {text}");
        }
    }
}

/// The uniform variables of each kernel ([`crate::passes::uniform`]), as a stage's text.
pub fn uniform(program: &tir::Program) {
    if !stages_wanted() {
        return;
    }
    stage_text("uniform", || {
        let mut out = String::new();
        for (_, f) in program.kernels() {
            let mut names: Vec<String> = crate::passes::uniform::uniform_locals(f)
                .into_iter()
                .map(|id| format!("{}.{}", f.local(id).name, id.0))
                .collect();
            names.sort();
            out.push_str(&format!("kernel {}: {}\n", f.name, names.join(" ")));
        }
        out
    });
}
