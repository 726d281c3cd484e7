//! What each stage of a build makes of a source, as text: the typed tree after semantic
//! analysis and after each middle-layer pass, the analyses' results, how each kernel runs,
//! and the Cranelift IR of every function. Golden tests (`tests/stages_golden.rs`) compare
//! these texts with blessed files; the texts are those `CLIFT_DUMP_TIR` and
//! `CLIFT_DUMP_CLIF` print.

use std::fmt::Write;

use crate::build::{self, BuildOptions};
use crate::codegen::dump;

/// Builds `source` as [`build::build`] does, and returns each stage's text in the order the
/// stages ran: `sema`, the passes (`inline`, `switches`), `uniform`, `execution`, `clif`.
/// On failure, the error is the build log.
pub fn dump_each(source: &str, options: &BuildOptions) -> Result<Vec<(String, String)>, String> {
    let capture = dump::capture();
    let built = build::build("input.cl", source, options);
    let collected = capture.finish();
    let built = built?;
    let mut stages = collected.tir;
    let mut execution = String::new();
    for k in &built.kernels {
        let _ = writeln!(execution, "kernel {}: {:?}", k.name, k.execution);
    }
    stages.push(("execution".to_string(), execution));
    let mut clif = String::new();
    for (function, text) in &collected.clif {
        let _ = writeln!(clif, "; {function}\n{text}");
    }
    stages.push(("clif".to_string(), clif));
    Ok(stages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_is_named_in_order_and_sees_the_build() {
        let stages = dump_each(
            "kernel void k(global int *o) { o[get_global_id(0)] = 1; }",
            &BuildOptions::default(),
        )
        .unwrap();
        let names: Vec<&str> = stages.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(
            names,
            ["sema", "inline", "switches", "uniform", "execution", "clif"]
        );
        assert!(stages[0].1.contains("kernel void k("), "{}", stages[0].1);
        assert_eq!(stages[3].1, "kernel k: o.0\n");
        assert_eq!(stages[4].1, "kernel k: WorkItemLoop\n");
        assert!(stages[5].1.contains("; work-group function of k\n"));
        let error = dump_each("kernel void k() { x; }", &BuildOptions::default());
        assert!(error.unwrap_err().contains("input.cl:1:19: error:"));
    }
}
