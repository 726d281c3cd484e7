//! The passes over the typed tree between semantic analysis and lowering (docs/ARCHITECTURE.md
//! section 6). Each module has one job and says what it takes and gives:
//!
//! - [`inline`]: calls of functions that synchronize the work-group inlined into their
//!   kernels (with [`hoist`], which first makes such calls statements of their own);
//! - [`switches`]: switches with barriers rewritten as `if` chains;
//! - [`uniform`]: which variables of a kernel are uniform across the work-group (an
//!   analysis, asked by the barrier planner);
//! - [`barriers`]: a kernel with barriers split into the steps of its work-group function;
//! - [`analysis`]: the small questions about a tree that several passes and the lowering
//!   ask.
//!
//! [`PIPELINE`] is the order in which the transformations run over a program; code
//! generation runs it ([`run`]) and then, per kernel with barriers, plans it with
//! [`barriers::plan`] (or, where the planner cannot split it, lowers it as a resumable
//! function).

pub(crate) mod analysis;
pub(crate) mod barriers;
pub(crate) mod hoist;
pub(crate) mod inline;
pub(crate) mod switches;
pub(crate) mod uniform;

use crate::frontend::tir;

/// A transformation of a whole program's typed tree.
pub struct Pass {
    /// Its name, for dumps of the tree after it.
    pub name: &'static str,
    pub run: fn(&mut tir::Program) -> Result<(), String>,
}

/// The transformations, in the order they run: inlining first (the switches to rewrite may
/// come from inlined functions).
pub const PIPELINE: [Pass; 2] = [
    Pass {
        name: "inline",
        run: inline::run,
    },
    Pass {
        name: "switches",
        run: switches::run,
    },
];

/// `program` after every pass of [`PIPELINE`]; `after` sees the tree after each. The
/// passes rewrite the tree in place: a build holds one typed tree, not one per stage.
pub fn run_observed(
    mut program: tir::Program,
    after: &mut dyn FnMut(&str, &tir::Program),
) -> Result<tir::Program, String> {
    for pass in &PIPELINE {
        (pass.run)(&mut program)?;
        after(pass.name, &program);
    }
    Ok(program)
}

/// `program` after every pass of [`PIPELINE`].
pub fn run(program: tir::Program) -> Result<tir::Program, String> {
    run_observed(program, &mut |_, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, typed_tree};

    #[test]
    fn the_passes_run_in_the_order_of_the_list() {
        let program = typed_tree(
            "p.cl",
            "kernel void k(global int *a) { a[0] = 1; }",
            &BuildOptions::default(),
        )
        .expect("it builds");
        let mut seen = Vec::new();
        let out = run_observed(program, &mut |name, p| {
            seen.push((name.to_string(), p.functions.len()))
        })
        .expect("the passes run");
        assert_eq!(
            seen,
            [("inline".to_string(), 1), ("switches".to_string(), 1)]
        );
        assert_eq!(out.functions.len(), 1);
    }
}
