//! The lowering of statements: control flow to Cranelift blocks.

use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, types};
use cranelift_frontend::Switch;

use super::{Lower, PlaceRef, Result};
use crate::codegen::CodegenError;
use crate::frontend::tir::{Stmt, StmtKind};
use crate::passes::analysis::is_barrier;

impl Lower<'_, '_> {
    pub(super) fn block(&mut self, stmts: &[Stmt]) -> Result<()> {
        for s in stmts {
            self.fresh_block_if_terminated();
            self.statement(s)?;
        }
        Ok(())
    }

    pub(in crate::codegen) fn statement(&mut self, s: &Stmt) -> Result<()> {
        match &s.kind {
            StmtKind::Expr(_) if self.resume.is_some() && is_barrier(s) => self.suspend(),
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Decl { local, init } => {
                if let Some(init) = init {
                    self.init_local(*local, init)?;
                }
            }
            StmtKind::Block(b) => self.block(b)?,
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = self.condition(cond)?;
                let (then_b, else_b, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                self.b.switch_to_block(then_b);
                self.block(then_branch)?;
                self.jump(join);
                self.b.switch_to_block(else_b);
                self.block(else_branch)?;
                self.jump(join);
                self.b.switch_to_block(join);
            }
            StmtKind::Loop {
                cond,
                step,
                body,
                test_after,
                ..
            } => {
                let (head, body_b, cont, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                // Read before the loop, except in a resumable function, which may resume
                // inside the loop without passing here.
                let hoisted = self.resume.is_none() && crate::jit::watchdog::enabled();
                let watchdog = hoisted.then(|| {
                    let group = self.group();
                    crate::jit::watchdog::flag_address(&mut self.b, group)
                });
                self.b
                    .ins()
                    .jump(if *test_after { body_b } else { head }, &[]);
                self.b.switch_to_block(head);
                match cond {
                    Some(c) => {
                        let c = self.condition(c)?;
                        self.b.ins().brif(c, body_b, &[], exit, &[]);
                    }
                    None => {
                        self.b.ins().jump(body_b, &[]);
                    }
                }
                self.b.switch_to_block(body_b);
                self.breaks.push(exit);
                self.continues.push(cont);
                self.block(body)?;
                self.breaks.pop();
                self.continues.pop();
                self.jump(cont);
                self.b.switch_to_block(cont);
                if let Some(step) = step {
                    self.expr(step)?;
                }
                if let Some(flag) = watchdog {
                    crate::jit::watchdog::check_flag(&mut self.b, flag);
                } else if crate::jit::watchdog::enabled() {
                    let group = self.group();
                    crate::jit::watchdog::check_back_edge(&mut self.b, group);
                }
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(exit);
            }
            StmtKind::Switch {
                value,
                cases,
                default,
                body,
            } => {
                let v = self.expr(value)?[0];
                let exit = self.b.create_block();
                let otherwise = match default {
                    Some(d) => self.label_block(*d),
                    None => exit,
                };
                // The dispatch jumps to one trampoline block per case, which jumps on to the
                // case's label. A trampoline has the dispatch as its only predecessor and is
                // sealed at once, so a variable the case reads is found through it without a
                // block parameter: otherwise each case label, unsealed while its body is
                // lowered, would get parameters whose arguments Cranelift adds to the jump
                // table by searching it, which made compile time quadratic in the cases.
                let mut switch = Switch::new();
                let ty = self.b.func.dfg.value_type(v);
                let mut trampolines = Vec::with_capacity(cases.len());
                for (case, label) in cases {
                    let trampoline = self.b.create_block();
                    trampolines.push((trampoline, self.label_block(*label)));
                    let bits = ty.bits();
                    let key = (*case as u128) & ((1u128 << bits) - 1);
                    switch.set_entry(key, trampoline);
                }
                switch.emit(&mut self.b, v, otherwise);
                for (trampoline, target) in trampolines {
                    self.b.switch_to_block(trampoline);
                    self.b.seal_block(trampoline);
                    self.b.ins().jump(target, &[]);
                }
                let body_start = self.b.create_block();
                self.b.switch_to_block(body_start);
                self.breaks.push(exit);
                self.switch_exits.push(SwitchExit {
                    exit,
                    joins: Vec::new(),
                    breaks: 0,
                });
                self.block(body)?;
                self.breaks.pop();
                let gathered = self.switch_exits.pop().map(|s| s.joins).unwrap_or_default();
                self.jump(exit);
                for join in gathered {
                    self.b.switch_to_block(join);
                    self.b.seal_block(join);
                    self.b.ins().jump(exit, &[]);
                }
                self.b.switch_to_block(exit);
            }
            StmtKind::Label(id) => {
                let block = self.label_block(*id);
                self.jump(block);
                self.b.switch_to_block(block);
            }
            StmtKind::Goto(id) => {
                let block = self.label_block(*id);
                // A goto may jump back: a loop the watchdog must see.
                if crate::jit::watchdog::enabled() {
                    let group = self.group();
                    crate::jit::watchdog::check_back_edge(&mut self.b, group);
                }
                self.b.ins().jump(block, &[]);
            }
            StmtKind::Break => {
                let mut target = *self
                    .breaks
                    .last()
                    .ok_or_else(|| CodegenError("'break' outside a loop".into()))?;
                if let Some(switch) = self.switch_exits.last_mut()
                    && switch.exit == target
                {
                    if switch.breaks % SwitchExit::BREAKS_PER_JOIN == 0 {
                        switch.joins.push(self.b.create_block());
                    }
                    switch.breaks += 1;
                    target = *switch.joins.last().expect("a join was just made");
                }
                self.b.ins().jump(target, &[]);
            }
            StmtKind::Continue => {
                let target = *self
                    .continues
                    .last()
                    .ok_or_else(|| CodegenError("'continue' outside a loop".into()))?;
                self.b.ins().jump(target, &[]);
            }
            StmtKind::Return(value) => {
                let v = match value {
                    Some(e) => self.expr(e)?,
                    None => Vec::new(),
                };
                match self.return_target {
                    // A kernel's `return` ends this work-item: on to the next of the row.
                    Some(next_item) => {
                        if let Some(offset) = self.done_flag {
                            // In a region: the item is done for the later regions too.
                            let addr = self.frame_address(offset);
                            let one = self.b.ins().iconst(types::I8, 1);
                            self.b.ins().store(MemFlagsData::trusted(), one, addr, 0);
                        }
                        self.b.ins().jump(next_item, &[]);
                    }
                    None => match self.sret {
                        // Returned through the caller's memory.
                        Some(out) => {
                            let ret = self.func.ret.clone();
                            self.store(&PlaceRef::Mem(out), &ret, v)?;
                            self.b.ins().return_(&[]);
                        }
                        None => {
                            self.b.ins().return_(&v);
                        }
                    },
                }
            }
        }
        Ok(())
    }
}

/// Where the `break`s of a switch go. Each group of [`Self::BREAKS_PER_JOIN`] breaks jumps
/// to a join block that jumps on to the exit: a switch of many cases that each assign a
/// variable and break would otherwise give the exit one block parameter with an argument
/// per case, which register allocation handles in time quadratic in their number.
pub(super) struct SwitchExit {
    exit: Block,
    joins: Vec<Block>,
    breaks: usize,
}

impl SwitchExit {
    const BREAKS_PER_JOIN: usize = 64;
}
