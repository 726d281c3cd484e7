//! The barrier planner: a kernel with barriers split into the steps its work-group function
//! runs (PoCL's work-item loop fission).
//!
//! Input: a kernel whose barriers are statements of its structured control flow (blocks,
//! `if`s and loops; [`splits_at_barriers`] says so; switches with barriers are `if` chains
//! by now, `passes::switches`), after inlining (no function it calls synchronizes).
//! Output: a [`Plan`]: straight-line statements between barriers become a
//! [`Step::Region`] that every work-item runs; `if`s and loops that contain barriers become
//! [`Step::If`] and [`Step::Loop`], run once by the group, their conditions evaluated by one
//! work-item (barriers must be reached uniformly, 6.12.8); statements that only set
//! variables kept once for the group (`passes::uniform`) become [`Step::Once`]. The plan's
//! [`FrameLayout`] says where each work-item keeps its variables from one region to the
//! next. Code generation lowers each step to a function and the plan to the work-group
//! function that runs them (`codegen::func::work_group`).

use std::collections::{HashMap, HashSet};

use super::analysis::{address_taken, contains_barrier, escapes_loop, is_barrier};
use super::uniform::{runs_once, shared_locals};
use crate::frontend::tir::{self, Expr, LocalId, Stmt, StmtKind};
use crate::frontend::types::AddressSpace;

/// Where a kernel with barriers keeps its variables from one region to the next.
pub(crate) struct FrameLayout {
    /// Every private variable (parameters included) has a slot in each work-item's frame.
    pub offsets: HashMap<LocalId, u32>,
    /// Bytes of one work-item's frame: a region steps by it from one item to the next.
    pub size: u32,
    /// The offset of the item's "done" flag (it returned; later regions skip it).
    pub done_flag: u32,
    /// Uniform variables kept once for the group, in the first item's frame.
    pub shared: HashSet<LocalId>,
    /// Variables whose address is taken: they stay in memory, never in registers.
    pub address_taken: HashSet<LocalId>,
}

impl FrameLayout {
    pub fn of(f: &tir::Function, body: &[Stmt]) -> FrameLayout {
        let mut offsets = HashMap::new();
        let mut size = 0u32;
        let mut max_align = 16u32;
        for (i, local) in f.locals.iter().enumerate() {
            if local.ty.space == AddressSpace::Local && (i as u32) >= f.params {
                continue;
            }
            // Aligned as everywhere (6.1.5): the frames of a group start at a multiple of
            // `MAX_ALIGN` and each frame is a multiple of its largest alignment long.
            let align = local.ty.ty.align().max(1) as u32;
            max_align = max_align.max(align);
            size = size.next_multiple_of(align);
            offsets.insert(LocalId(i as u32), size);
            size += local.ty.ty.size().max(1) as u32;
        }
        FrameLayout {
            offsets,
            done_flag: size,
            // One byte more: the done flag.
            size: (size + 1).next_multiple_of(16).next_multiple_of(max_align),
            shared: shared_locals(f),
            address_taken: address_taken(body),
        }
    }
}

/// What the work-group function of a kernel with barriers runs, in order.
#[derive(Debug)]
pub(crate) enum Step {
    /// Statements every work-item runs (up to the next barrier).
    Region(Vec<Stmt>),
    /// Statements the group runs once, as its first work-item (they only set variables
    /// kept once for the group).
    Once(Vec<Stmt>),
    /// An `if` with barriers: its condition evaluated by one work-item.
    If {
        cond: Expr,
        then_steps: Vec<Step>,
        else_steps: Vec<Step>,
    },
    /// A loop with barriers: its condition evaluated by one work-item; its step a `Region`
    /// or, when it only changes variables kept once, a `Once`.
    Loop {
        cond: Option<Expr>,
        step: Option<Box<Step>>,
        body: Vec<Step>,
        test_after: bool,
    },
    /// `break` / `continue` of the innermost group-level loop (taken by the whole group:
    /// the control flow around barriers is uniform).
    Break,
    Continue,
}

/// A kernel split at its barriers.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    pub frames: FrameLayout,
}

/// Splits kernel `f` at its barriers; an error when one is not a statement of its
/// structured control flow (the caller checks [`splits_at_barriers`] first).
pub(crate) fn plan(f: &tir::Function) -> Result<Plan, String> {
    let body = f.body.as_ref().ok_or("a kernel without a body")?;
    let frames = FrameLayout::of(f, body);
    let steps = Planner {
        f,
        frames: &frames,
        loop_depth: 0,
    }
    .steps(body)?;
    Ok(Plan { steps, frames })
}

/// Whether the planner can split `body` at each of its barriers: they are statements of
/// blocks, `if`s and loops only, no `goto` is near them, and every `break`/`continue` that
/// leaves a group-level loop is a statement of such blocks too.
pub(crate) fn splits_at_barriers(body: &[Stmt]) -> bool {
    !crate::frontend::tir::visit::any_statement(body, &|s| matches!(s, StmtKind::Goto(_)))
        && plannable(body, false)
}

fn plannable(block: &[Stmt], in_group_loop: bool) -> bool {
    block.iter().all(|s| {
        let one = std::slice::from_ref(s);
        let leaves_group_loop = in_group_loop && escapes_loop(one);
        if !(contains_barrier(one) || leaves_group_loop) {
            return true;
        }
        match &s.kind {
            _ if is_barrier(s) => true,
            StmtKind::Break | StmtKind::Continue => true,
            StmtKind::Block(b) => plannable(b, in_group_loop),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => plannable(then_branch, in_group_loop) && plannable(else_branch, in_group_loop),
            StmtKind::Loop { body, .. } => plannable(body, true),
            _ => false,
        }
    })
}

struct Planner<'a> {
    f: &'a tir::Function,
    frames: &'a FrameLayout,
    /// Group-level loops around the statements being planned.
    loop_depth: u32,
}

impl Planner<'_> {
    fn steps(&mut self, stmts: &[Stmt]) -> Result<Vec<Step>, String> {
        let mut steps = Vec::new();
        let mut run: Vec<Stmt> = Vec::new();
        self.walk(stmts, &mut run, &mut steps)?;
        flush(&mut run, &mut steps);
        Ok(steps)
    }

    fn walk(
        &mut self,
        stmts: &[Stmt],
        run: &mut Vec<Stmt>,
        steps: &mut Vec<Step>,
    ) -> Result<(), String> {
        for s in stmts {
            let one = std::slice::from_ref(s);
            // A break or continue of a group-level loop is the group's too.
            let escapes = self.loop_depth > 0 && escapes_loop(one);
            if !contains_barrier(one) && !escapes {
                if runs_once(s, &self.frames.shared) {
                    // It only sets variables kept once for the group: run it once.
                    flush(run, steps);
                    steps.push(Step::Once(vec![s.clone()]));
                } else {
                    run.push(s.clone());
                }
                continue;
            }
            match &s.kind {
                _ if is_barrier(s) => flush(run, steps),
                StmtKind::Break | StmtKind::Continue => {
                    flush(run, steps);
                    steps.push(if matches!(s.kind, StmtKind::Break) {
                        Step::Break
                    } else {
                        Step::Continue
                    });
                }
                StmtKind::Block(b) => self.walk(b, run, steps)?,
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    flush(run, steps);
                    let then_steps = self.steps(then_branch)?;
                    let else_steps = self.steps(else_branch)?;
                    steps.push(Step::If {
                        cond: cond.clone(),
                        then_steps,
                        else_steps,
                    });
                }
                StmtKind::Loop {
                    cond,
                    step,
                    body,
                    test_after,
                    ..
                } => {
                    flush(run, steps);
                    // A step that changes only shared variables runs once for the group.
                    let step = step.as_ref().map(|e| {
                        let stmt = Stmt {
                            kind: StmtKind::Expr(e.clone()),
                            span: s.span,
                        };
                        Box::new(if runs_once(&stmt, &self.frames.shared) {
                            Step::Once(vec![stmt])
                        } else {
                            Step::Region(vec![stmt])
                        })
                    });
                    self.loop_depth += 1;
                    let body = self.steps(body);
                    self.loop_depth -= 1;
                    steps.push(Step::Loop {
                        cond: cond.clone(),
                        step,
                        body: body?,
                        test_after: *test_after,
                    });
                }
                _ => {
                    // `splits_at_barriers` sends such kernels to the resumable fallback.
                    return Err(format!(
                        "internal error: the work-group planner cannot split '{}' at its barriers",
                        self.f.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Ends the run of statements every work-item runs: a region of them, if any.
fn flush(run: &mut Vec<Stmt>, steps: &mut Vec<Step>) {
    if !run.is_empty() {
        steps.push(Step::Region(std::mem::take(run)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, typed_tree};

    /// The plan's steps, in short: `region(n)`/`once(n)` with their statement counts.
    fn describe(steps: &[Step]) -> String {
        let one = |s: &Step| match s {
            Step::Region(stmts) => format!("region({})", stmts.len()),
            Step::Once(stmts) => format!("once({})", stmts.len()),
            Step::If {
                then_steps,
                else_steps,
                ..
            } => format!("if[{} | {}]", describe(then_steps), describe(else_steps)),
            Step::Loop { step, body, .. } => format!(
                "loop[{}; {}]",
                step.as_deref()
                    .map_or(String::new(), |s| describe(std::slice::from_ref(s))),
                describe(body)
            ),
            Step::Break => "break".to_string(),
            Step::Continue => "continue".to_string(),
        };
        steps.iter().map(one).collect::<Vec<_>>().join(" ")
    }

    fn plan_of(source: &str) -> Plan {
        let program = typed_tree("b.cl", source, &BuildOptions::default()).expect("it builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        assert!(splits_at_barriers(f.body.as_ref().expect("a body")));
        plan(f).expect("it splits")
    }

    #[test]
    fn a_reduction_splits_into_regions_around_its_barriers() {
        let plan = plan_of(
            "kernel void k(global int *a, local int *t) {
                int lid = get_local_id(0);
                t[lid] = a[lid];
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
                    if (lid < s) t[lid] += t[lid + s];
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                a[lid] = t[0];
            }",
        );
        // Two statements before the first barrier; `s` is uniform and written at group
        // level only, so its declaration and the loop's step run once; the loop body's
        // `if` is a region; the last store another.
        assert_eq!(
            describe(&plan.steps),
            "region(2) once(1) loop[once(1); region(1)] region(1)"
        );
    }

    #[test]
    fn an_if_with_a_barrier_and_a_break_of_a_group_loop_are_the_groups() {
        let plan = plan_of(
            "kernel void k(global int *a, int n) {
                for (int i = 0; i < n; i++) {
                    if (n > 3) { a[get_local_id(0)] = i; barrier(CLK_GLOBAL_MEM_FENCE); }
                    else break;
                    a[get_local_id(0)] += 1;
                }
            }",
        );
        assert_eq!(
            describe(&plan.steps),
            "once(1) loop[once(1); if[region(1) | break] region(1)]"
        );
    }

    #[test]
    fn the_frame_keeps_every_private_variable_and_a_done_flag() {
        let plan = plan_of(
            "kernel void k(global int *a, local float *t) {
                local int shared_array[4];
                char c = 1;
                long2 d = (long2)(0);
                barrier(CLK_LOCAL_MEM_FENCE);
                a[0] = c + (int)d.x + shared_array[0] + (int)t[0];
            }",
        );
        let f = &plan.frames;
        // `a` (8 bytes) at 0, `t` (8) at 8, `c` at 16, `d` aligned to 16 at 32; the
        // `__local` array has no slot; the done flag follows `d`.
        let mut offsets: Vec<u32> = f.offsets.values().copied().collect();
        offsets.sort();
        assert_eq!(offsets, [0, 8, 16, 32]);
        assert_eq!(f.done_flag, 48);
        assert_eq!(f.size, 64);
    }

    #[test]
    fn a_barrier_reached_by_goto_is_not_planned() {
        let program = typed_tree(
            "b.cl",
            "kernel void k(global int *a) {
                if (a[0]) goto skip;
                barrier(CLK_LOCAL_MEM_FENCE);
                skip: a[1] = 0;
            }",
            &BuildOptions::default(),
        )
        .expect("it builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        assert!(!splits_at_barriers(f.body.as_ref().expect("a body")));
    }
}
