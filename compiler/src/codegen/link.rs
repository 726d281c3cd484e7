//! The link step of a build: every function a defined function calls and every
//! program-scope variable it uses must be defined in the program.
//!
//! `clCompileProgram` accepts declarations alone (`extern constant float foo;`,
//! `int f(int);`): another object of the link may define them. A build or link of the whole
//! program has nothing left to resolve them against, so each reference to an undefined name
//! is an error at the place it is used, like a linker's "undefined reference" — before code
//! generation, which would otherwise call code that does not exist.

use std::collections::HashSet;

use crate::frontend::source::Span;
use crate::frontend::tir::visit::for_each_expr;
use crate::frontend::tir::{self, Expr, ExprKind, Place, PlaceKind};

/// One use of a function or variable that the program declares but does not define.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved {
    /// The function or variable.
    pub name: String,
    /// Where it is used.
    pub span: Span,
    /// Where it is declared.
    pub declared: Span,
    pub is_function: bool,
}

impl Unresolved {
    /// The log line's message.
    pub fn message(&self) -> String {
        let what = if self.is_function {
            "function"
        } else {
            "variable"
        };
        format!("undefined reference to {what} '{}'", self.name)
    }
}

/// Every use, in the defined functions, of a function without a body or of a program-scope
/// variable without a definition (each name once per function).
pub fn unresolved(program: &tir::Program) -> Vec<Unresolved> {
    let mut out = Vec::new();
    for f in &program.functions {
        let Some(body) = &f.body else { continue };
        let mut seen = HashSet::new();
        for_each_expr(body, &mut |e| uses(program, e, &mut seen, &mut out));
    }
    out
}

/// The unresolved uses in `e` itself.
fn uses(
    program: &tir::Program,
    e: &Expr,
    seen: &mut HashSet<(bool, u32)>,
    out: &mut Vec<Unresolved>,
) {
    match &e.kind {
        ExprKind::Call { func, .. } => {
            let callee = program.function(*func);
            if callee.body.is_none() && seen.insert((true, func.0)) {
                out.push(Unresolved {
                    name: callee.name.to_string(),
                    span: e.span,
                    declared: callee.span,
                    is_function: true,
                });
            }
        }
        ExprKind::Load(p) | ExprKind::AddressOf(p) | ExprKind::IncDec { place: p, .. } => {
            place_uses(program, p, seen, out)
        }
        ExprKind::Assign { place, .. } => place_uses(program, place, seen, out),
        _ => {}
    }
}

/// The undefined variable at the root of a place (its index expressions are children of
/// the enclosing expression and are visited there).
fn place_uses(
    program: &tir::Program,
    p: &Place,
    seen: &mut HashSet<(bool, u32)>,
    out: &mut Vec<Unresolved>,
) {
    match &p.kind {
        PlaceKind::Global(id) => {
            let g = &program.globals[id.0 as usize];
            if !g.defined && seen.insert((false, id.0)) {
                out.push(Unresolved {
                    name: g.name.to_string(),
                    span: p.span,
                    declared: g.span,
                    is_function: false,
                });
            }
        }
        PlaceKind::Element { array, .. } => place_uses(program, array, seen, out),
        PlaceKind::Field { record, .. } => place_uses(program, record, seen, out),
        PlaceKind::Lanes { vector, .. } => place_uses(program, vector, seen, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, build, typed_tree};

    fn unresolved_in(source: &str) -> Vec<(String, bool)> {
        let program = typed_tree("t.cl", source, &BuildOptions::default()).expect("checks");
        unresolved(&program)
            .into_iter()
            .map(|u| (u.name, u.is_function))
            .collect()
    }

    #[test]
    fn uses_of_undefined_functions_and_variables_are_found_once_per_function() {
        let source = "int f(int);\n\
                      extern constant int v;\n\
                      extern constant int w[4];\n\
                      int g(int x) { return f(x) + f(v) + w[x]; }\n\
                      kernel void k(global int *p) { p[0] = f(p[0]) + g(1); }\n";
        assert_eq!(
            unresolved_in(source),
            [
                ("f".to_string(), true),
                ("v".to_string(), false),
                ("w".to_string(), false),
                ("f".to_string(), true),
            ]
        );
        // Defined later in the source: nothing is unresolved; declared but unused: nothing.
        let defined = "int f(int);\nextern constant int v;\nint unused(int);\n\
                       kernel void k(global int *p) { p[0] = f(v); }\n\
                       int f(int x) { return x + 1; }\nconstant int v = 3;\n";
        assert_eq!(unresolved_in(defined), []);
    }

    #[test]
    fn a_build_reports_the_use_and_the_declaration() {
        let log = build(
            "t.cl",
            "int f(int);\nkernel void k(global int *p) { p[0] = f(2); }\n",
            &BuildOptions::default(),
        )
        .err()
        .expect("the build fails");
        assert!(
            log.contains("t.cl:2:39: error: undefined reference to function 'f'"),
            "{log}"
        );
        assert!(
            log.contains("t.cl:1:5: note: 'f' is declared here"),
            "{log}"
        );
        // Code generation alone refuses too, instead of calling code that does not exist.
        let program = typed_tree(
            "t.cl",
            "int f(int);\nkernel void k(global int *p) { p[0] = f(2); }\n",
            &BuildOptions::default(),
        )
        .unwrap();
        let Err(error) = super::super::compile(program, &Default::default()) else {
            panic!("codegen fails");
        };
        assert_eq!(error.to_string(), "undefined reference to function 'f'");
    }
}
