//! `CLIFT_DUMP_CLIF`: prints the Cranelift IR of every function compiled, and its machine
//! code (disassembled) with its size, to stderr (documented in docs/ENVIRONMENT.md).
//!
//! A tool (`cliftc --emit clif|asm`) can instead [`collect`] the same texts for the builds of
//! its process and print them itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use cranelift_codegen::Context;
use cranelift_codegen::ir::Function;

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
});

/// What [`collect`] gathered, each list sorted by function name (functions are compiled in
/// parallel, so the order they finish in varies).
#[derive(Debug, Default)]
pub struct Collected {
    pub clif: Vec<(String, String)>,
    pub asm: Vec<(String, String)>,
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

fn collecting() -> bool {
    COLLECTING.load(Ordering::Relaxed)
}

/// Prints a function's IR before it is compiled.
pub fn function(name: &str, func: &Function) {
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
