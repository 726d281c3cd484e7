//! `cliftc`: clift's offline OpenCL C compiler.
//!
//! It builds a program exactly as `clBuildProgram` does on clift's device (the same option
//! parser, the same compiler options, the same build log), without an OpenCL context, so
//! that kernels can be checked, inspected and turned into program binaries from a shell or
//! a build script. See `cliftc --help` and the README.

mod args;
mod color;
mod stages;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use args::{Color, Invocation, Request, Stage};
use clift_runtime::program::{CompileOptions, InvalidOption, build_options};
use clift_runtime::program_binary::{BinaryKind, ProgramBinary};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args::parse(&args) {
        Ok(Request::Help) => {
            print!("{}", args::USAGE);
            ExitCode::SUCCESS
        }
        Ok(Request::Version) => {
            println!("cliftc {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Ok(Request::Run(invocation)) => run(&invocation),
        Err(message) => {
            eprintln!("cliftc: {message}\n\n{}", args::USAGE);
            ExitCode::from(2)
        }
    }
}

/// Builds the program, prints what was asked, and says whether the build succeeded.
fn run(invocation: &Invocation) -> ExitCode {
    let name = invocation.source.display().to_string();
    let text = match std::fs::read(&invocation.source) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            eprintln!("cliftc: cannot read {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let parsed = match CompileOptions::parse(invocation.options.as_bytes()) {
        Ok(parsed) => parsed,
        Err(InvalidOption(option)) => {
            // What clBuildProgram answers with CL_INVALID_BUILD_OPTIONS.
            eprintln!("cliftc: error: invalid build option '{option}'");
            return ExitCode::FAILURE;
        }
    };
    let mut options = build_options(&parsed);
    if invocation.list_kernels {
        // Argument names and qualifiers are kept only when asked for; they change no code.
        options.sema.kernel_arg_info = true;
        options.codegen.kernel_arg_info = true;
    }
    let colored = match invocation.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal(),
    };
    let mut stdout = std::io::stdout().lock();
    for stage in &invocation.emit {
        if let Some(text) = stages::frontend_stage(*stage, &name, &text, &options) {
            let _ = stdout.write_all(text.as_bytes());
        }
    }
    let wants_code = invocation
        .emit
        .iter()
        .any(|s| matches!(s, Stage::Clif | Stage::Asm));
    if wants_code {
        clift_compiler::codegen::dump::collect();
    }
    let built = clift_compiler::build::build(&name, &text, &options);
    let log = match &built {
        Ok(b) => &b.log,
        Err(log) => log,
    };
    eprint!("{}", color::paint(log, colored));
    let Ok(built) = built else {
        return ExitCode::FAILURE;
    };
    if wants_code {
        let code = clift_compiler::codegen::dump::take();
        for stage in &invocation.emit {
            let list = match stage {
                Stage::Clif => &code.clif,
                Stage::Asm => &code.asm,
                _ => continue,
            };
            for (function, text) in list {
                let _ = writeln!(stdout, "; {function}\n{text}");
            }
        }
    }
    if invocation.list_kernels {
        let _ = stdout.write_all(stages::kernel_listing(&built.kernels).as_bytes());
    }
    if let Some(path) = &invocation.output {
        let binary = ProgramBinary {
            kind: BinaryKind::Executable,
            options: parsed.after_preprocessing(),
            text: built.preprocessed.clone(),
        };
        if let Err(e) = std::fs::write(path, binary.encode()) {
            eprintln!("cliftc: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
