//! Memory of a step's work-items: one vector access where the lanes' elements are
//! consecutive (known, or tested at run time) and every lane is active, else per lane, for
//! the active lanes only.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::Variable;

use super::super::func::{Lanes, PlaceRef, Result};
use super::super::ops::clif_type;
use super::super::ops::lane_types;
use super::WIDTH;
use super::lower::VecLower;
use super::narrow::RegForm;
use super::narrow_vec::narrow_soa;
use super::pair::{pair_type, soa_pair_type};
use super::value::{Index, VVal, lane_order, soa_type};
use crate::frontend::types::Type;

impl VecLower<'_, '_> {
    /// Reads memory of type `ty` at `addr` in the current lanes.
    pub(super) fn load_mem(&mut self, addr: VVal, ty: &Type) -> Result<VVal> {
        if let VVal::U(a) = &addr {
            return Ok(VVal::U(self.l.load(&PlaceRef::Mem(a[0]), ty)?));
        }
        if let Some(v) = self.load_soa(&addr, ty)? {
            return Ok(v);
        }
        if let Some(v) = self.load_pair(&addr, ty)? {
            return Ok(v);
        }
        let form = RegForm::of(ty);
        if let (VVal::Seq { base, stride, .. }, Some(form)) = (&addr, form)
            && *stride == ty.size() as i64
        {
            let base = *base;
            let Some(m) = self.mask() else {
                return Ok(form.val(self.load_reg(form, base)));
            };
            // Every lane active: one load; else only the active lanes' elements.
            let result = self.l.b.declare_var(form.reg_type());
            let all = self.l.b.ins().vall_true(m);
            let (fast, slow, join) = (
                self.l.b.create_block(),
                self.l.b.create_block(),
                self.l.b.create_block(),
            );
            self.l.b.ins().brif(all, fast, &[], slow, &[]);
            self.l.b.switch_to_block(fast);
            let v = self.load_reg(form, base);
            self.l.b.def_var(result, v);
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(slow);
            let lanes = self.load_lanes(&addr, ty, Some(m))?;
            let v = self.assemble(lanes, ty);
            let v = self.reg(form, &v);
            self.l.b.def_var(result, v);
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(join);
            return Ok(form.val(self.l.b.use_var(result)));
        }
        if let (Some(first), Some(form)) = (self.consecutive(&addr, ty), form) {
            let result = self.l.b.declare_var(form.reg_type());
            let (fast, slow, join) = (
                self.l.b.create_block(),
                self.l.b.create_block(),
                self.l.b.create_block(),
            );
            self.l.b.ins().brif(first.0, fast, &[], slow, &[]);
            self.l.b.switch_to_block(fast);
            let v = self.load_reg(form, first.1);
            self.l.b.def_var(result, v);
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(slow);
            let m = self.mask();
            let lanes = self.load_lanes(&addr, ty, m)?;
            let v = self.assemble(lanes, ty);
            let v = self.reg(form, &v);
            self.l.b.def_var(result, v);
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(join);
            return Ok(form.val(self.l.b.use_var(result)));
        }
        // A gather: every step runs it.
        let start = self.l.b.func.dfg.num_insts();
        let m = self.mask();
        let lanes = self.load_lanes(&addr, ty, m)?;
        let v = self.assemble(lanes, ty);
        self.lane_work += self.l.b.func.dfg.num_insts() - start;
        Ok(v)
    }

    /// For an indexed address of elements of `ty` (one register's worth): whether, at run
    /// time, every lane is active and the lanes' elements are consecutive (an `i8`), and
    /// the first lane's address.
    pub(super) fn consecutive(&mut self, addr: &VVal, ty: &Type) -> Option<(Value, Value)> {
        let VVal::Indexed {
            base,
            index,
            signed,
            scale,
        } = *addr
        else {
            return None;
        };
        let held = RegForm::of(ty).is_some()
            || soa_type(ty).is_some()
            || narrow_soa(ty).is_some()
            || pair_type(ty).is_some()
            || soa_pair_type(ty).is_some();
        if scale != ty.size() as i64 || !held {
            return None;
        }
        // The index must not wrap around between the first and the last lane.
        let (cc, max) = if signed {
            (IntCC::SignedLessThanOrEqual, i64::from(i32::MAX) - WIDTH)
        } else {
            (IntCC::UnsignedLessThanOrEqual, i64::from(u32::MAX) - WIDTH)
        };
        let (first, mut ok) = match index {
            Index::Reg(index) => {
                let first = self.l.b.ins().extractlane(index, 0);
                let splat = self.l.b.ins().splat(types::I32X4, first);
                let steps = self.iota(1);
                let expect = self.l.b.ins().iadd(splat, steps);
                let eq = self.l.b.ins().icmp(IntCC::Equal, index, expect);
                let ok = self.l.b.ins().vall_true(eq);
                let no_wrap = self.l.b.ins().icmp_imm_s(cc, first, max);
                (first, self.l.b.ins().band(ok, no_wrap))
            }
            // A sequence of stride 1 is consecutive where it does not wrap: one compare.
            Index::Seq { first, stride: 1 } => (first, self.l.b.ins().icmp_imm_s(cc, first, max)),
            Index::Seq { .. } => return None,
        };
        if let Some(m) = self.mask() {
            let all = self.l.b.ins().vall_true(m);
            ok = self.l.b.ins().band(ok, all);
        }
        let wide = if signed {
            self.l.b.ins().sextend(types::I64, first)
        } else {
            self.l.b.ins().uextend(types::I64, first)
        };
        let offset = self.l.b.ins().imul_imm_s(wide, scale);
        let address = self.l.b.ins().iadd(base, offset);
        Some((ok, address))
    }

    /// Each lane's read of `ty` at its address, for the lanes of `guard` (zeros elsewhere).
    pub(super) fn load_lanes(
        &mut self,
        addr: &VVal,
        ty: &Type,
        guard: Option<Value>,
    ) -> Result<Vec<Lanes>> {
        let addrs = self.lanes(addr);
        let (t, n) = lane_types(ty).unwrap_or((types::I64, 1));
        self.lanewise(guard, &vec![t; n], |s, k| {
            s.l.load(&PlaceRef::Mem(addrs[k][0]), ty)
        })
    }

    /// Writes `value` of type `ty` at `addr` in the current lanes only.
    pub(super) fn store_mem(&mut self, addr: VVal, value: VVal, ty: &Type) -> Result<()> {
        if self.store_soa(&addr, &value, ty)? || self.store_pair(&addr, &value, ty)? {
            return Ok(());
        }
        let mask = self.mask();
        if let (VVal::Seq { base, stride, .. }, Some(form)) = (&addr, RegForm::of(ty))
            && *stride == ty.size() as i64
        {
            let base = *base;
            let x = self.reg(form, &value);
            let Some(m) = mask else {
                self.store_reg(form, x, base);
                return Ok(());
            };
            let all = self.l.b.ins().vall_true(m);
            let (fast, slow, join) = (
                self.l.b.create_block(),
                self.l.b.create_block(),
                self.l.b.create_block(),
            );
            self.l.b.ins().brif(all, fast, &[], slow, &[]);
            self.l.b.switch_to_block(fast);
            self.store_reg(form, x, base);
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(slow);
            self.store_lanes(&addr, &form.val(x), ty, Some(m))?;
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(join);
            return Ok(());
        }
        if let (VVal::U(a), VVal::U(v)) = (&addr, &value) {
            // The same value to the same place: once, if any lane stores it.
            let (a, v) = (a[0], v.clone());
            let Some(m) = mask else {
                return self.l.store(&PlaceRef::Mem(a), ty, v);
            };
            let any = self.l.b.ins().vany_true(m);
            let (run, join) = (self.l.b.create_block(), self.l.b.create_block());
            self.l.b.ins().brif(any, run, &[], join, &[]);
            self.l.b.switch_to_block(run);
            self.l.store(&PlaceRef::Mem(a), ty, v)?;
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(join);
            return Ok(());
        }
        if let (Some(first), Some(form)) = (self.consecutive(&addr, ty), RegForm::of(ty)) {
            let x = self.reg(form, &value);
            let (fast, slow, join) = (
                self.l.b.create_block(),
                self.l.b.create_block(),
                self.l.b.create_block(),
            );
            self.l.b.ins().brif(first.0, fast, &[], slow, &[]);
            self.l.b.switch_to_block(fast);
            self.store_reg(form, x, first.1);
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(slow);
            self.store_lanes(&addr, &form.val(x), ty, mask)?;
            self.l.b.ins().jump(join, &[]);
            self.l.b.switch_to_block(join);
            return Ok(());
        }
        // A scatter: every step runs it.
        let start = self.l.b.func.dfg.num_insts();
        self.store_lanes(&addr, &value, ty, mask)?;
        self.lane_work += self.l.b.func.dfg.num_insts() - start;
        Ok(())
    }

    /// Where the step's vectors of `ty` are one after the other in memory from `addr` (a
    /// sequence whose stride is their size, or an index found consecutive at run time),
    /// the first one's address and, where it is not known, whether they are (an `i8`,
    /// false also where some lane is inactive). `None`: not of a width loaded whole.
    fn soa_run(&mut self, addr: &VVal, ty: &Type) -> Option<(Option<Value>, Value)> {
        let (n, width) = match (soa_type(ty), narrow_soa(ty)) {
            (Some((_, n)), _) => (n, 4),
            (None, Some((s, n))) => (n, u64::from(s.bits()) / 8),
            _ => return None,
        };
        // float3's 16 bytes hold 3 components: moved per lane.
        if !matches!(n, 2 | 4 | 8 | 16) || ty.size() != n as u64 * width {
            return None;
        }
        match *addr {
            VVal::Seq { base, stride, .. } if stride == ty.size() as i64 => {
                let ok = self.mask().map(|m| self.l.b.ins().vall_true(m));
                Some((ok, base))
            }
            VVal::Indexed { .. } => {
                let (ok, first) = self.consecutive(addr, ty)?;
                Some((Some(ok), first))
            }
            _ => None,
        }
    }

    /// Reads vectors of `ty` (kept one register per component) where the step's are
    /// consecutive: a 16-byte load per 4 components of each work-item, transposed.
    fn load_soa(&mut self, addr: &VVal, ty: &Type) -> Result<Option<VVal>> {
        let Some((ok, first)) = self.soa_run(addr, ty) else {
            return Ok(None);
        };
        let Some(ok) = ok else {
            return Ok(Some(self.load_components(first, ty)));
        };
        // Where they are not consecutive (or some lane is inactive), the active lanes'
        // vectors are gathered into a buffer on the stack (zeros for the others) and read
        // from there: the two paths meet with one address, not with a register per
        // component, which would all be live at the join (spilled, for 16 of them).
        let size = ty.size() as u32;
        let width = ty.element().map_or(4, |s| s.bits() / 8);
        let slot = self.l.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            size * WIDTH as u32,
            4,
        ));
        let from = self.l.b.declare_var(types::I64);
        let (fast, slow, join) = (
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
        );
        self.l.b.ins().brif(ok, fast, &[], slow, &[]);
        self.l.b.switch_to_block(fast);
        self.l.b.def_var(from, first);
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(slow);
        let m = self.mask();
        let lanes = self.load_lanes(addr, ty, m)?;
        let buffer = self.l.b.ins().stack_addr(types::I64, slot, 0);
        for (k, lane) in lanes.iter().enumerate() {
            for (c, x) in lane.iter().enumerate() {
                let offset = (k as u32 * size + width * c as u32) as i32;
                self.l
                    .b
                    .ins()
                    .store(MemFlagsData::trusted(), *x, buffer, offset);
            }
        }
        self.l.b.def_var(from, buffer);
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(join);
        let from = self.l.b.use_var(from);
        Ok(Some(self.load_components(from, ty)))
    }

    /// The step's consecutive vectors of `ty` from `base` in registers, one per component.
    fn load_components(&mut self, base: Value, ty: &Type) -> VVal {
        if let Some((s, n)) = narrow_soa(ty) {
            return VVal::NS(self.load_narrow_soa(base, s, n), clif_type(s));
        }
        let (vt, n) = soa_type(ty).expect("soa_run checked it");
        VVal::S(self.load_transposed(base, vt, n))
    }

    /// Writes the components `cs` of the step's vectors of `ty` consecutively from `base`.
    fn store_components(&mut self, base: Value, cs: &[Value], ty: &Type) {
        match narrow_soa(ty) {
            Some((s, _)) => self.store_narrow_soa(base, cs, s),
            None => self.store_transposed(base, cs),
        }
    }

    /// Writes vectors of `ty` where the step's are consecutive (as `load_soa` reads them);
    /// false where they are not of such a width or address.
    fn store_soa(&mut self, addr: &VVal, value: &VVal, ty: &Type) -> Result<bool> {
        let Some((ok, first)) = self.soa_run(addr, ty) else {
            return Ok(false);
        };
        let (cs, held) = match narrow_soa(ty) {
            Some((s, n)) => {
                let cs: Vec<Value> = (0..n).map(|c| self.narrow_component(value, c, s)).collect();
                (cs.clone(), VVal::NS(cs, clif_type(s)))
            }
            None => {
                let (vt, n) = soa_type(ty).expect("soa_run checked it");
                let cs: Vec<Value> = (0..n).map(|c| self.component(value, c, vt)).collect();
                (cs.clone(), VVal::S(cs))
            }
        };
        let Some(ok) = ok else {
            self.store_components(first, &cs, ty);
            return Ok(true);
        };
        let (fast, slow, join) = (
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
        );
        self.l.b.ins().brif(ok, fast, &[], slow, &[]);
        self.l.b.switch_to_block(fast);
        self.store_components(first, &cs, ty);
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(slow);
        let m = self.mask();
        self.store_lanes(addr, &held, ty, m)?;
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(join);
        Ok(true)
    }

    /// The `n` components (registers of `vt`) of the step's consecutive vectors from `base`.
    fn load_transposed(&mut self, base: Value, vt: ir::Type, n: usize) -> Vec<Value> {
        let flags = MemFlagsData::new();
        if n == 2 {
            // [x0 y0 x1 y1] [x2 y2 x3 y3]: the even and the odd lanes.
            let r0 = self.l.b.ins().load(vt, flags, base, 0);
            let r1 = self.l.b.ins().load(vt, flags, base, 16);
            return vec![
                self.shuffle32(r0, r1, [0, 2, 4, 6]),
                self.shuffle32(r0, r1, [1, 3, 5, 7]),
            ];
        }
        let size = n as i32 * 4;
        let mut cs = Vec::with_capacity(n);
        for j in 0..n as i32 / 4 {
            let rows: Vec<Value> = (0..WIDTH as i32)
                .map(|k| self.l.b.ins().load(vt, flags, base, k * size + 16 * j))
                .collect();
            cs.extend(self.transpose4(&rows));
        }
        cs
    }

    /// Writes the components `cs` of the step's vectors consecutively from `base`.
    fn store_transposed(&mut self, base: Value, cs: &[Value]) {
        let flags = MemFlagsData::new();
        if cs.len() == 2 {
            let r0 = self.shuffle32(cs[0], cs[1], [0, 4, 1, 5]);
            let r1 = self.shuffle32(cs[0], cs[1], [2, 6, 3, 7]);
            self.l.b.ins().store(flags, r0, base, 0);
            self.l.b.ins().store(flags, r1, base, 16);
            return;
        }
        let size = cs.len() as i32 * 4;
        for (j, four) in cs.chunks(4).enumerate() {
            let rows = self.transpose4(four);
            for (k, r) in rows.into_iter().enumerate() {
                self.l
                    .b
                    .ins()
                    .store(flags, r, base, k as i32 * size + 16 * j as i32);
            }
        }
    }

    /// The transpose of 4 registers of 4 lanes (row k's lane j becomes row j's lane k).
    fn transpose4(&mut self, rows: &[Value]) -> Vec<Value> {
        let t0 = self.shuffle32(rows[0], rows[1], [0, 4, 1, 5]);
        let t1 = self.shuffle32(rows[0], rows[1], [2, 6, 3, 7]);
        let t2 = self.shuffle32(rows[2], rows[3], [0, 4, 1, 5]);
        let t3 = self.shuffle32(rows[2], rows[3], [2, 6, 3, 7]);
        vec![
            self.shuffle32(t0, t2, [0, 1, 4, 5]),
            self.shuffle32(t0, t2, [2, 3, 6, 7]),
            self.shuffle32(t1, t3, [0, 1, 4, 5]),
            self.shuffle32(t1, t3, [2, 3, 6, 7]),
        ]
    }

    /// The 32-bit lanes `pick` of `a` (0..4) and `b` (4..8), as a register of `a`'s type.
    pub(super) fn shuffle32(&mut self, a: Value, b: Value, pick: [u8; 4]) -> Value {
        let vt = self.l.b.func.dfg.value_type(a);
        let bytes: Vec<u8> = pick
            .iter()
            .flat_map(|&l| (0..4).map(move |i| l * 4 + i))
            .collect();
        let r = self.shuffle_bytes(a, b, bytes);
        self.l.b.ins().bitcast(vt, lane_order(), r)
    }

    /// The bytes `pick` of `a` (0..16) and `b` (16..32), as an `i8x16`.
    pub(super) fn shuffle_bytes(&mut self, a: Value, b: Value, pick: Vec<u8>) -> Value {
        let mask = self
            .l
            .b
            .func
            .dfg
            .immediates
            .push(ir::ConstantData::from(pick));
        let a = self.l.b.ins().bitcast(types::I8X16, lane_order(), a);
        let b = self.l.b.ins().bitcast(types::I8X16, lane_order(), b);
        self.l.b.ins().shuffle(a, b, mask)
    }

    /// Each lane's write, in lane order (the last work-item's value stays where several
    /// write one place), for the lanes of `guard`.
    pub(super) fn store_lanes(
        &mut self,
        addr: &VVal,
        value: &VVal,
        ty: &Type,
        guard: Option<Value>,
    ) -> Result<()> {
        let addrs = self.lanes(addr);
        let values = self.lanes(value);
        self.lanewise(guard, &[], |s, k| {
            s.l.store(&PlaceRef::Mem(addrs[k][0]), ty, values[k].clone())?;
            Ok(Vec::new())
        })?;
        Ok(())
    }

    /// For each lane, one variable of each type in `types`, set to zero: what a lane that a
    /// guard skips keeps.
    pub(super) fn zeroed_lane_variables(&mut self, types: &[ir::Type]) -> Vec<Vec<Variable>> {
        (0..WIDTH)
            .map(|_| {
                types
                    .iter()
                    .map(|&t| {
                        let v = self.l.b.declare_var(t);
                        let z = self.zero(t);
                        self.l.b.def_var(v, z);
                        v
                    })
                    .collect()
            })
            .collect()
    }

    /// Runs `f` for each lane of `guard` (every lane without one), in lane order; its
    /// results (of `types`) are zeros for the lanes that did not run.
    pub(super) fn lanewise(
        &mut self,
        guard: Option<Value>,
        types: &[ir::Type],
        mut f: impl FnMut(&mut Self, usize) -> Result<Lanes>,
    ) -> Result<Vec<Lanes>> {
        let start = self.l.b.func.dfg.num_insts();
        let vars = self.zeroed_lane_variables(types);
        for (k, lane) in vars.iter().enumerate() {
            let next = self.l.b.create_block();
            if let Some(m) = guard {
                let run = self.l.b.create_block();
                let on = self.lane_on(m, k as i64);
                self.l.b.ins().brif(on, run, &[], next, &[]);
                self.l.b.switch_to_block(run);
            }
            let values = f(self, k)?;
            for (v, x) in lane.iter().zip(values) {
                self.l.b.def_var(*v, x);
            }
            self.l.b.ins().jump(next, &[]);
            self.l.b.switch_to_block(next);
        }
        self.per_lane_insts += self.l.b.func.dfg.num_insts() - start;
        Ok(vars
            .iter()
            .map(|lane| lane.iter().map(|v| self.l.b.use_var(*v)).collect())
            .collect())
    }
}
