//! `CLIFT_DUMP_CLIF`: prints the Cranelift IR of every function compiled, and its machine
//! code (disassembled) with its size, to stderr (documented in docs/ENVIRONMENT.md).

use std::sync::OnceLock;

use cranelift_codegen::Context;
use cranelift_codegen::ir::Function;

/// The environment variable that turns the dump on (any non-empty value but `0`).
pub const DUMP_VAR: &str = "CLIFT_DUMP_CLIF";

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    super::env_flag(DUMP_VAR, &ON)
}

/// Prints a function's IR before it is compiled.
pub fn function(name: &str, func: &Function) {
    if enabled() {
        eprintln!("; clift: {name}\n{}", func.display());
    }
}

/// Asks Cranelift to keep the machine code's text (its disassembly) when the dump is on.
pub fn request_disassembly(ctx: &mut Context) {
    if enabled() {
        ctx.set_disasm(true);
    }
}

/// Prints the machine code just generated (Cranelift's disassembly of it) and its size.
pub fn machine_code(name: &str, ctx: &Context) {
    if enabled()
        && let Some(code) = ctx.compiled_code()
    {
        let text = code.vcode.as_deref().unwrap_or("");
        eprintln!(
            "; clift: {name}: {} bytes of machine code\n{text}",
            code.code_buffer().len()
        );
    }
}
