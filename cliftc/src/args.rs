//! The command line: cliftc's own flags, and everything else as `clBuildProgram` options.

use std::path::PathBuf;

/// A stage whose output `--emit` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The preprocessed tokens, one a line with their location.
    Tokens,
    /// The syntax tree.
    Ast,
    /// The typed tree (what code generation starts from).
    Tir,
    /// Cranelift IR of every function compiled.
    Clif,
    /// Machine code of every function compiled, disassembled.
    Asm,
}

impl Stage {
    fn parse(name: &str) -> Option<Stage> {
        Some(match name {
            "tokens" => Stage::Tokens,
            "ast" => Stage::Ast,
            "tir" => Stage::Tir,
            "clif" => Stage::Clif,
            "asm" => Stage::Asm,
            _ => return None,
        })
    }
}

/// When diagnostics are coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    Auto,
    Always,
    Never,
}

/// What one run of cliftc does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    pub source: PathBuf,
    /// The build options, as the options string `clBuildProgram` would get.
    pub options: String,
    /// `-o FILE`: write a program binary.
    pub output: Option<PathBuf>,
    /// `--kernels`: list the kernels and their arguments.
    pub list_kernels: bool,
    pub emit: Vec<Stage>,
    pub color: Color,
}

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    Run(Invocation),
    Help,
    Version,
}

pub const USAGE: &str = "\
usage: cliftc [OPTIONS] FILE.cl

Builds an OpenCL C program as clift's clBuildProgram does and prints its build log
(file:line:col, the source line and a caret). Exit status 0 when it builds, 1 when not,
2 for a bad command line.

  -o FILE            write a program binary that clCreateProgramWithBinary loads
  --kernels          list the kernels with their argument types and qualifiers
  --emit STAGE       print a stage: tokens, ast, tir, clif or asm (may be repeated)
  --color WHEN       colour diagnostics: auto (on a terminal), always or never
  -h, --help         this text
  --version          cliftc's version

Every other option is a build option of clBuildProgram (section 5.6.4 of the OpenCL 1.2
specification): -D NAME[=VALUE] (function-like macros too: -D 'SQ(x)=((x)*(x))'),
-I DIR, -cl-std=CL1.1|CL1.2, -w, -Werror, -cl-kernel-arg-info, -cl-mad-enable,
-cl-fast-relaxed-math and the other -cl-* options.
";

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Request, String> {
    let mut source = None;
    let mut build_options: Vec<&str> = Vec::new();
    let mut output = None;
    let mut list_kernels = false;
    let mut emit = Vec::new();
    let mut color = Color::Auto;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(Request::Help),
            "--version" => return Ok(Request::Version),
            "-o" => output = Some(PathBuf::from(value("-o")?)),
            "--kernels" => list_kernels = true,
            "--emit" => {
                let name = value("--emit")?;
                emit.push(Stage::parse(&name).ok_or_else(|| {
                    format!("unknown stage '{name}' (tokens, ast, tir, clif, asm)")
                })?);
            }
            "--color" => {
                color = match value("--color")?.as_str() {
                    "auto" => Color::Auto,
                    "always" => Color::Always,
                    "never" => Color::Never,
                    other => {
                        return Err(format!(
                            "--color takes auto, always or never, not '{other}'"
                        ));
                    }
                }
            }
            // Options that take their value as the next argument keep it beside them.
            "-D" | "-I" => {
                build_options.push(arg);
                match args.next() {
                    Some(v) => build_options.push(v),
                    None => return Err(format!("{arg} needs a value")),
                }
            }
            a if a.starts_with('-') && a.len() > 1 => build_options.push(a),
            a => {
                if source.replace(PathBuf::from(a)).is_some() {
                    return Err("give one source file".into());
                }
            }
        }
    }
    let source = source.ok_or("no source file given")?;
    Ok(Request::Run(Invocation {
        source,
        options: options_string(&build_options),
        output,
        list_kernels,
        emit,
        color,
    }))
}

/// Joins command-line arguments into an options string that `clBuildProgram`'s parser
/// splits back into the same arguments: white space, quotes and backslashes are escaped
/// with a backslash (the parser splits as a shell does).
fn options_string(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            let mut escaped = String::with_capacity(a.len());
            for c in a.chars() {
                if c.is_whitespace() || matches!(c, '\'' | '"' | '\\') {
                    escaped.push('\\');
                }
                escaped.push(c);
            }
            escaped
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Invocation {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&args).unwrap() {
            Request::Run(i) => i,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn build_options_pass_through_in_order() {
        let i = run(&[
            "-D",
            "N=4",
            "k.cl",
            "-DSQ(x)=((x)*(x))",
            "-I",
            "my dir",
            "-cl-mad-enable",
            "--kernels",
        ]);
        assert_eq!(i.source, PathBuf::from("k.cl"));
        assert_eq!(
            i.options,
            "-D N=4 -DSQ(x)=((x)*(x)) -I my\\ dir -cl-mad-enable"
        );
        assert!(i.list_kernels);
        assert_eq!(i.output, None);
    }

    #[test]
    fn own_flags() {
        let i = run(&[
            "--emit", "tir", "--emit", "asm", "-o", "k.bin", "--color", "never", "k.cl",
        ]);
        assert_eq!(i.emit, [Stage::Tir, Stage::Asm]);
        assert_eq!(i.output, Some(PathBuf::from("k.bin")));
        assert_eq!(i.color, Color::Never);
        assert_eq!(i.options, "");
    }

    #[test]
    fn mistakes_are_reported() {
        let parse = |args: &[&str]| parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(parse(&[]).unwrap_err(), "no source file given");
        assert_eq!(
            parse(&["a.cl", "b.cl"]).unwrap_err(),
            "give one source file"
        );
        assert_eq!(parse(&["a.cl", "-o"]).unwrap_err(), "-o needs a value");
        assert_eq!(
            parse(&["a.cl", "--emit", "llvm"]).unwrap_err(),
            "unknown stage 'llvm' (tokens, ast, tir, clif, asm)"
        );
        assert_eq!(parse(&["--help"]).unwrap(), Request::Help);
    }
}
