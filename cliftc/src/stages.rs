//! The texts `--emit` and `--kernels` print.

use std::fmt::Write;
use std::sync::Arc;

use clift_compiler::build::BuildOptions;
use clift_compiler::frontend::{self, Until, token::TokenKind};
use clift_compiler::kernel::KernelCode;
use khronos_headers::*;

use crate::args::Stage;

/// The text of a frontend stage (tokens, syntax tree, typed tree), or `None` for the stages
/// code generation prints. A stage that diagnostics stop (a typed tree of a program with
/// errors) prints nothing; the build log says why.
pub fn frontend_stage(
    stage: Stage,
    name: &str,
    text: &str,
    options: &BuildOptions,
) -> Option<String> {
    if matches!(stage, Stage::Clif | Stage::Asm) {
        return None;
    }
    let until = match stage {
        Stage::Tokens => Until::Preprocess,
        Stage::Ast => Until::Parse,
        _ => Until::Sema,
    };
    let checked = frontend::run(name, text, options.frontend(), until);
    match (stage, &checked.unit) {
        (Stage::Tokens, _) => {
            let mut out = String::new();
            for t in checked
                .tokens
                .iter()
                .take_while(|t| t.kind != TokenKind::Eof)
            {
                let at = checked.sources.locate(t.site.file, t.site.start);
                let _ = writeln!(
                    out,
                    "{}:{}:{}\t{}\t{}",
                    at.name,
                    at.line,
                    at.column,
                    token_kind(t.kind),
                    t.text
                );
            }
            Some(out)
        }
        (Stage::Ast, Some(unit)) => Some(frontend::parse::dump(unit)),
        _ => (!checked.diagnostics.has_errors())
            .then(|| frontend::tir_print::print(&checked.program)),
    }
}

fn token_kind(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::Ident => "ident",
        TokenKind::Number => "number",
        TokenKind::Char => "char",
        TokenKind::Str => "string",
        TokenKind::Punct(_) => "punct",
        TokenKind::Other => "other",
        TokenKind::Pragma => "pragma",
        TokenKind::Eof => "eof",
    }
}

/// Each kernel with its arguments: index, address space, access, type qualifiers, type and
/// name, as `clGetKernelArgInfo` reports them, and the kernel's attributes and memory.
pub fn kernel_listing(kernels: &[Arc<KernelCode>]) -> String {
    let mut out = String::new();
    for k in kernels {
        let _ = write!(out, "kernel {}", k.name);
        if !k.attributes.is_empty() {
            let _ = write!(out, " [{}]", k.attributes);
        }
        let _ = writeln!(
            out,
            " (private {} bytes, local {} bytes)",
            k.private_mem_size, k.static_local_size
        );
        for (i, p) in k.params.iter().enumerate() {
            let info = &p.info;
            let mut words: Vec<&str> = Vec::new();
            words.push(match info.address_qualifier {
                CL_KERNEL_ARG_ADDRESS_GLOBAL => "__global",
                CL_KERNEL_ARG_ADDRESS_LOCAL => "__local",
                CL_KERNEL_ARG_ADDRESS_CONSTANT => "__constant",
                _ => "__private",
            });
            match info.access_qualifier {
                CL_KERNEL_ARG_ACCESS_READ_ONLY => words.push("__read_only"),
                CL_KERNEL_ARG_ACCESS_WRITE_ONLY => words.push("__write_only"),
                CL_KERNEL_ARG_ACCESS_READ_WRITE => words.push("__read_write"),
                _ => {}
            }
            for (bit, word) in [
                (CL_KERNEL_ARG_TYPE_CONST, "const"),
                (CL_KERNEL_ARG_TYPE_RESTRICT, "restrict"),
                (CL_KERNEL_ARG_TYPE_VOLATILE, "volatile"),
            ] {
                if info.type_qualifier & bit != 0 {
                    words.push(word);
                }
            }
            let _ = writeln!(
                out,
                "  arg {i}: {} {} {}",
                words.join(" "),
                info.type_name,
                info.name
            );
        }
    }
    out
}
