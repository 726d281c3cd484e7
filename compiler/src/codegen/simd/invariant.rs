//! The values a loop reads and does not change, placed before it.
//!
//! Cranelift's optimizer places each pure instruction at its first use and hoists it out of
//! a loop only when every operand is defined outside the loop; but constants (`f32const`,
//! `iconst`, additions of an immediate) are rematerialized in each block that uses them,
//! inside the loop, and so is everything computed from one: the ray tracer's `normalize` of
//! its ray direction, computed before its loop over the spheres, ran on every iteration.
//! A use before the loop fixes the place: each register of a variable that the loop reads
//! and does not write goes into one test before the loop, and a branch on it (to the same
//! block either way: a few instructions per loop entry), so its computation is placed there and the loop
//! reuses the result.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, ValueDef, types};

use super::super::func::{Result, Storage};
use super::lower::{VecLower, locals_in, writes_in};
use super::value::VVal;
use crate::frontend::tir::{Expr, LocalId, Stmt, visit};

impl VecLower<'_, '_> {
    /// Computes, here, the variables that the loop of condition and step `parts` and body
    /// `body` reads but does not write.
    pub(super) fn compute_before_loop(&mut self, parts: &[&Expr], body: &[Stmt]) -> Result<()> {
        let (mut read, mut written) = (Vec::new(), Vec::new());
        let mut note = |e: &Expr| {
            locals_in(e, &mut read);
            writes_in(e, &mut written);
        };
        parts.iter().for_each(|e| note(e));
        visit::for_each_stmt_expr(body, &mut note);
        read.sort_by_key(|id| id.0);
        read.dedup();
        let read: Vec<_> = read
            .into_iter()
            .filter(|id| !written.contains(id))
            .collect();
        // In a step of several groups, every group's registers (in one block: a use in a
        // block of its own is a block parameter, which the test skips).
        let groups = self.split_groups();
        let mut values = Vec::new();
        if groups > 1 {
            for g in 0..groups {
                self.enter_group(g);
                let r = self.read_registers(&read, &mut values);
                self.enter_group(0);
                r?;
            }
        } else {
            self.read_registers(&read, &mut values)?;
        }
        self.place_before(values);
        Ok(())
    }

    /// The registers of the variables `read`, added to `values`.
    fn read_registers(&mut self, read: &[LocalId], values: &mut Vec<Value>) -> Result<()> {
        for &id in read {
            if self.vars.contains_key(&id) {
                match self.get_local(id)? {
                    VVal::V(x) | VVal::N(x, _) => values.push(x),
                    VVal::S(xs) | VVal::NS(xs, _) => values.extend(xs),
                    VVal::P(p) => values.extend(p),
                    VVal::SP(ps) => values.extend(ps.into_iter().flatten()),
                    _ => {}
                }
            } else if let Storage::Vars(vs) | Storage::Packed(vs, _) =
                &self.l.storage[id.0 as usize]
            {
                for v in vs.clone() {
                    values.push(self.l.b.use_var(v));
                }
            }
        }
        Ok(())
    }

    /// One use of each of `values` here: a truth value (an `i8`) that depends on every
    /// register, and one branch on it.
    fn place_before(&mut self, values: Vec<Value>) {
        let mut all: Option<Value> = None;
        for x in values {
            if matches!(self.l.b.func.dfg.value_def(x), ValueDef::Param(..)) {
                continue;
            }
            let t = self.l.b.func.dfg.value_type(x);
            let bits = if t.is_vector() {
                let any = self.l.b.ins().vany_true(x);
                all = Some(match all {
                    Some(a) => self.l.b.ins().bor(a, any),
                    None => any,
                });
                continue;
            } else if t == types::F32 {
                self.l.b.ins().bitcast(types::I32, MemFlagsData::new(), x)
            } else if t == types::F64 {
                self.l.b.ins().bitcast(types::I64, MemFlagsData::new(), x)
            } else if t.is_int() {
                x
            } else {
                continue;
            };
            let nonzero = self.l.b.ins().icmp_imm_s(IntCC::NotEqual, bits, 0);
            all = Some(match all {
                Some(a) => self.l.b.ins().bor(a, nonzero),
                None => nonzero,
            });
        }
        if let Some(c) = all {
            let next = self.l.b.create_block();
            self.l.b.ins().brif(c, next, &[], next, &[]);
            self.l.b.switch_to_block(next);
        }
    }
}
