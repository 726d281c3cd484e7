//! Semantic analysis: the syntax tree in, the typed tree ([`tir`]) out.
//!
//! One pass over the translation unit, in source order (C's rule: a name is visible from its
//! declaration on). Every rule of OpenCL C 1.2 that the syntax cannot express is checked
//! here, each with a clang-like message at the offending spot: vector literals versus
//! casts, the conversion rules of section 6.2, swizzles, address spaces, kernel
//! restrictions, builtin overloads (resolved against `clift_builtins::signatures`).
//! Errors do not stop the pass: a failed expression yields `None` and its parents stay
//! quiet, so each mistake is reported once.
//!
//! [`tir`]: super::tir

#[cfg(test)]
mod aggregate_tests;
mod builtin;
pub(crate) mod constant;
mod decl;
mod expr;
mod record;
#[cfg(test)]
mod rules_tests;
mod stmt;
mod stmt_expr;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use super::ast;
use super::diag::Diagnostics;
use super::source::Span;
use super::tir::{self, Extensions, FuncId, GlobalId, LabelId, LocalId};
use super::types::{QualType, Record, Scalar, Type};

/// What the build options and the device allow.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The device supports `cl_khr_fp64` (the pragma may enable it).
    pub fp64_supported: bool,
    /// `double` is usable without the pragma: OpenCL C 1.2 made double precision an
    /// optional core feature (6.1.1), so a 1.2 program on a device that supports it needs
    /// no `#pragma OPENCL EXTENSION cl_khr_fp64 : enable` (as clang and every 1.2 driver
    /// accept). `-cl-std=CL1.1` programs still need the pragma.
    pub fp64_by_default: bool,
    /// The device supports `cl_khr_fp16`.
    pub fp16_supported: bool,
    /// The device supports the 64-bit atomics extensions.
    pub int64_atomics_supported: bool,
    /// `-cl-single-precision-constant`: unsuffixed floating constants are `float`.
    pub single_precision_constant: bool,
    /// `-cl-kernel-arg-info`.
    pub kernel_arg_info: bool,
}

/// Analyzes a translation unit.
pub fn analyze(
    unit: &ast::TranslationUnit,
    options: &Options,
    diags: &mut Diagnostics,
) -> tir::Program {
    let mut analyzer = Analyzer::new(options.clone(), diags);
    for item in &unit.items {
        match item {
            ast::ExternalDecl::Function(f) => analyzer.function_definition(f),
            ast::ExternalDecl::Declaration(d) => analyzer.file_scope_declaration(d),
            ast::ExternalDecl::Pragma(p) => analyzer.pragma(p),
        }
    }
    analyzer.finish()
}

/// What a name in scope stands for.
#[derive(Clone, Debug)]
enum Symbol {
    Local(LocalId),
    Global(GlobalId),
    Function(FuncId),
    Typedef(QualType),
    /// An enumeration constant: its value and type.
    EnumConstant(i64, Scalar),
}

/// A struct, union or enum tag.
#[derive(Clone, Debug)]
enum Tag {
    Record(Arc<Record>),
    Enum(Option<Arc<str>>),
}

#[derive(Default)]
struct Scope {
    names: HashMap<Arc<str>, Symbol>,
    tags: HashMap<Arc<str>, Tag>,
}

/// The state of the function being analyzed.
struct FunctionState {
    locals: Vec<tir::Local>,
    ret: Type,
    is_kernel: bool,
    /// Named labels: their id, and whether the label was placed (not only jumped to).
    labels: HashMap<Arc<str>, (LabelId, Option<Span>, Span)>,
    label_count: u32,
    loop_depth: u32,
    /// The innermost `switch`: its cases and default so far.
    switches: Vec<SwitchState>,
    callees: Vec<FuncId>,
    /// Depth of block nesting (1 = the function body).
    depth: u32,
    /// The access qualifier of each image parameter (`__read_only` when none is written),
    /// which decides whether `read_image*` or `write_image*` may take it.
    image_access: HashMap<LocalId, tir::AccessQualifier>,
}

struct SwitchState {
    value_type: Scalar,
    cases: Vec<(i64, LabelId)>,
    /// The case values so far, for the duplicate check (a scan of `cases` made a switch's
    /// analysis quadratic in its cases).
    values: std::collections::HashSet<i64>,
    default: Option<LabelId>,
}

struct Analyzer<'d> {
    options: Options,
    diags: &'d mut Diagnostics,
    /// Extensions enabled so far by `#pragma OPENCL EXTENSION`.
    extensions: Extensions,
    scopes: Vec<Scope>,
    program: tir::Program,
    current: Option<FunctionState>,
    /// The program's `__attribute__((overloadable))` functions named like a builtin
    /// (clang's opencl-c.h declares every builtin overloadable, so a program may add
    /// overloads): calls of the name choose among them and the builtin's overloads.
    builtin_overloads: HashMap<Arc<str>, Vec<FuncId>>,
    /// The file-scope names of this translation unit declared `static` (internal linkage):
    /// they end with the unit (see [`Analyzer::next_translation_unit`]).
    internal_names: std::collections::HashSet<Arc<str>>,
}

/// The file scope every translation unit starts with: the predefined constants and
/// typedefs.
fn predefined_scope() -> Scope {
    let mut file_scope = Scope::default();
    for (name, value, scalar) in PREDEFINED_CONSTANTS {
        file_scope
            .names
            .insert((*name).into(), Symbol::EnumConstant(*value, *scalar));
    }
    // The sampler, channel order and channel type constants of 6.12.14 (ints).
    use clift_builtins::image::{format, sample};
    for (name, value) in sample::KERNEL_CONSTANTS
        .iter()
        .chain(format::KERNEL_CONSTANTS.iter())
    {
        file_scope.names.insert(
            (*name).into(),
            Symbol::EnumConstant(i64::from(*value), Scalar::Int),
        );
    }
    // The standard typedefs (6.1.1): 64-bit on this device.
    for (name, scalar) in [
        ("size_t", Scalar::ULong),
        ("ptrdiff_t", Scalar::Long),
        ("intptr_t", Scalar::Long),
        ("uintptr_t", Scalar::ULong),
    ] {
        file_scope.names.insert(
            name.into(),
            Symbol::Typedef(QualType::new(Type::Scalar(scalar))),
        );
    }
    file_scope
}

/// The pragma `clLinkProgram` puts between the objects it joins (see
/// [`Analyzer::next_translation_unit`]).
pub const OBJECT_BOUNDARY_PRAGMA: &str = "clift object";

/// The fence flags and other constants OpenCL C predefines as enumeration constants.
const PREDEFINED_CONSTANTS: &[(&str, i64, Scalar)] = &[
    // `bool` constants: `(uchar4)true` is all ones (6.2.2), so `true` has type bool.
    ("true", 1, Scalar::Bool),
    ("false", 0, Scalar::Bool),
    ("CLK_LOCAL_MEM_FENCE", 1, Scalar::UInt),
    ("CLK_GLOBAL_MEM_FENCE", 2, Scalar::UInt),
];

impl<'d> Analyzer<'d> {
    fn new(options: Options, diags: &'d mut Diagnostics) -> Analyzer<'d> {
        let fp64 = options.fp64_supported && options.fp64_by_default;
        Analyzer {
            options,
            diags,
            extensions: Extensions {
                byte_addressable_store: true,
                fp64,
                ..Extensions::default()
            },
            scopes: vec![predefined_scope()],
            program: tir::Program::default(),
            current: None,
            builtin_overloads: HashMap::new(),
            internal_names: Default::default(),
        }
    }

    /// `#pragma clift object`, which `clLinkProgram` puts between the objects it joins:
    /// each object is its own translation unit, so its tags, typedefs, enumeration
    /// constants, extension pragmas and `static` functions and variables end with it (two
    /// objects may each define `struct s` or `static int f()`). The other functions and
    /// program-scope variables have external linkage and stay: the link resolves one
    /// object's declarations against another's definitions.
    fn next_translation_unit(&mut self) {
        let mut scope = predefined_scope();
        let internal = std::mem::take(&mut self.internal_names);
        for (name, symbol) in &self.scopes[0].names {
            let external = !internal.contains(name);
            if external && matches!(symbol, Symbol::Function(_) | Symbol::Global(_)) {
                scope.names.insert(Arc::clone(name), symbol.clone());
            }
        }
        self.scopes = vec![scope];
        self.extensions = Extensions {
            byte_addressable_store: true,
            fp64: self.options.fp64_supported && self.options.fp64_by_default,
            ..Extensions::default()
        };
    }

    fn finish(mut self) -> tir::Program {
        self.check_recursion();
        self.program
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.error(span, message);
    }

    fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.diags.warning(span, message);
    }

    fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name))
    }

    fn lookup_tag(&self, name: &str) -> Option<&Tag> {
        self.scopes.iter().rev().find_map(|s| s.tags.get(name))
    }

    /// Declares `name` in the innermost scope; a second declaration of a name in the same
    /// scope is an error unless both are compatible function declarations.
    fn declare(&mut self, name: &Arc<str>, symbol: Symbol, span: Span) {
        let scope = self
            .scopes
            .last_mut()
            .expect("there is always a file scope");
        if let Some(old) = scope.names.get(name) {
            let compatible = matches!((old, &symbol), (Symbol::Function(a), Symbol::Function(b)) if a == b)
                || matches!((old, &symbol), (Symbol::Typedef(a), Symbol::Typedef(b)) if a == b);
            if !compatible {
                self.diags.error(span, format!("redefinition of '{name}'"));
                return;
            }
        }
        scope.names.insert(Arc::clone(name), symbol);
    }

    /// `#pragma OPENCL EXTENSION name : enable|disable`; other pragmas are accepted.
    fn pragma(&mut self, pragma: &ast::Pragma) {
        if pragma.text.trim() == OBJECT_BOUNDARY_PRAGMA {
            self.next_translation_unit();
            return;
        }
        let words: Vec<&str> = pragma.text.split_whitespace().collect();
        let ["OPENCL", "EXTENSION", name, ":", behavior] = words[..] else {
            return;
        };
        let enable = match behavior {
            "enable" => true,
            "disable" => false,
            _ => {
                self.warning(pragma.span, format!("expected 'enable' or 'disable' in '#pragma OPENCL EXTENSION', found '{behavior}'"));
                return;
            }
        };
        let supported = |flag: bool| flag;
        let slot = match name {
            "cl_khr_fp64" if supported(self.options.fp64_supported) => &mut self.extensions.fp64,
            "cl_khr_fp16" if supported(self.options.fp16_supported) => &mut self.extensions.fp16,
            "cl_khr_int64_base_atomics" | "cl_khr_int64_extended_atomics"
                if self.options.int64_atomics_supported =>
            {
                &mut self.extensions.int64_atomics
            }
            "all" => {
                self.extensions.fp64 = enable && self.options.fp64_supported;
                self.extensions.fp16 = enable && self.options.fp16_supported;
                self.extensions.int64_atomics = enable && self.options.int64_atomics_supported;
                return;
            }
            // The 1.0 extensions that became core in 1.1/1.2: enabling them changes nothing.
            "cl_khr_global_int32_base_atomics"
            | "cl_khr_global_int32_extended_atomics"
            | "cl_khr_local_int32_base_atomics"
            | "cl_khr_local_int32_extended_atomics"
            | "cl_khr_byte_addressable_store"
            | "cl_khr_icd" => return,
            _ => {
                self.warning(
                    pragma.span,
                    format!("unsupported OpenCL extension '{name}' - ignoring"),
                );
                return;
            }
        };
        *slot = enable;
    }

    /// Reports every cycle of calls: "recursion is not supported" in OpenCL C (6.9.h).
    fn check_recursion(&mut self) {
        let n = self.program.functions.len();
        // 0: unvisited, 1: on the current path, 2: done.
        let mut state = vec![0u8; n];
        let mut reported = vec![false; n];
        for start in 0..n {
            let mut stack = vec![(start, 0usize)];
            while let Some(&mut (f, ref mut next)) = stack.last_mut() {
                if *next == 0 {
                    if state[f] == 2 {
                        stack.pop();
                        continue;
                    }
                    state[f] = 1;
                }
                let callees = &self.program.functions[f].callees;
                if let Some(&callee) = callees.get(*next) {
                    *next += 1;
                    let c = callee.0 as usize;
                    if state[c] == 1 && !reported[c] {
                        reported[c] = true;
                        let span = self.program.functions[c].span;
                        let name = Arc::clone(&self.program.functions[c].name);
                        self.diags.error(
                            span,
                            format!(
                                "recursion is not supported in OpenCL C: '{name}' calls itself"
                            ),
                        );
                    } else if state[c] == 0 {
                        stack.push((c, 0));
                    }
                } else {
                    state[f] = 2;
                    stack.pop();
                }
            }
        }
    }

    /// The state of the function being analyzed (only called inside function bodies).
    fn func(&mut self) -> &mut FunctionState {
        self.current.as_mut().expect("inside a function body")
    }

    /// Adds a variable to the current function.
    fn new_local(&mut self, name: Arc<str>, ty: QualType, span: Span) -> LocalId {
        let f = self.func();
        f.locals.push(tir::Local { name, ty, span });
        LocalId(f.locals.len() as u32 - 1)
    }

    fn new_label(&mut self) -> LabelId {
        let f = self.func();
        f.label_count += 1;
        LabelId(f.label_count - 1)
    }
}
