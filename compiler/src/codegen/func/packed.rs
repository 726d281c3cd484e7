//! Explicit vector types (`float4`, `int8`, `uchar16`, ...) in Cranelift's 128-bit vector
//! registers, in the scalar code path.
//!
//! Expressions still evaluate to [`Lanes`] (one value per component), so the rest of the
//! lowering keeps working on components. A vector value is "in registers" when its lanes
//! are the `extractlane`s of 128-bit registers, lane `i` of register `r` being component
//! `r * per + i` (`per` components per register; a 3-vector uses 4 lanes, the fourth
//! undefined; a `float8` is two registers). Operations whose operands are in registers (or
//! are splats or constants) work on the registers and give `extractlane`s of their results;
//! the `extractlane`s nobody reads are never emitted (Cranelift lowers only used pure
//! instructions). Vector variables live in register-typed SSA variables, and whole-vector
//! loads and stores move registers. Everything else packs lanes into registers (shuffling
//! those of other registers: swizzles, `.lo`, `.even`) or reads components lazily.
//!
//! Every operation mapped here computes, lane for lane, what the lane-by-lane code computes:
//! the same IEEE operations (no reassociation, `mad` fused only where it was), shift counts
//! masked to the lane width, comparisons giving -1/0. Integer division stays lane by lane
//! (Cranelift's division traps on zero; the lane code guards it), as do the operations x64
//! Cranelift lacks as vectors (8-bit multiplication, shifts by per-lane counts).
//! `CodegenOptions::lanes_only` / `CLIFT_VECTOR_REGISTERS=0` turns all of this off.

use std::collections::HashSet;
use std::sync::OnceLock;

use cranelift_codegen::ir::{
    self, ConstantData, Endianness, InstBuilder, InstructionData, MemFlagsData, Opcode, Value,
    types,
};

use super::{Lanes, Lower};
use crate::codegen::ops::clif_type;
use crate::frontend::tir::{self, ExprKind, LocalId, PlaceKind};
use crate::frontend::types::{Scalar, Type};

/// Whether `CLIFT_VECTOR_REGISTERS` leaves vector registers on (anything but `0`).
pub(in crate::codegen) fn enabled_by_environment() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| !std::env::var("CLIFT_VECTOR_REGISTERS").is_ok_and(|v| v == "0"))
}

/// How a vector type is held in registers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::codegen) struct Shape {
    /// The component's Cranelift type.
    pub lane: ir::Type,
    /// Components.
    pub n: usize,
    /// Components per register.
    pub per: usize,
    /// The register type (`lane` × `per`, 128 bits).
    pub vt: ir::Type,
}

impl Shape {
    pub fn registers(&self) -> usize {
        self.n.div_ceil(self.per)
    }

    /// The components of register `r`.
    pub(super) fn range(&self, r: usize) -> std::ops::Range<usize> {
        r * self.per..((r + 1) * self.per).min(self.n)
    }

    /// Whether register `r` holds `per` components (and so moves to and from memory whole).
    pub(super) fn full(&self, r: usize) -> bool {
        self.range(r).len() == self.per
    }
}

/// The register shape of `ty`: vectors of at least 128 bits, and 3-vectors of 32-bit
/// components (in 4 lanes). Narrower vectors (`float2`, `char4`) and `half` / `bool`
/// components stay lane by lane.
pub(in crate::codegen) fn shape(ty: &Type) -> Option<Shape> {
    let Type::Vector(s, n) = ty else {
        return None;
    };
    if matches!(s, Scalar::Half | Scalar::Bool) {
        return None;
    }
    let lane = clif_type(*s);
    let (n, bits) = (usize::from(*n), lane.bits() as usize);
    if n * bits < 128 && !(n == 3 && bits == 32) {
        return None;
    }
    let per = 128 / bits;
    Some(Shape {
        lane,
        n,
        per,
        vt: lane.by(per as u32)?,
    })
}

/// The vector variables of `body` written a component at a time (`v.x = ...`, `v.s01 += ...`,
/// `v.y++`): they stay lane by lane, where such a write is one instruction, not an extract
/// and an insert.
pub(in crate::codegen) fn component_written(body: &[tir::Stmt]) -> HashSet<LocalId> {
    let mut set = HashSet::new();
    tir::visit::for_each_expr(body, &mut |e| {
        if let ExprKind::Assign { place, .. } | ExprKind::IncDec { place, .. } = &e.kind
            && let PlaceKind::Lanes { vector, .. } = &place.kind
            && let PlaceKind::Local(id) = vector.kind
        {
            set.insert(id);
        }
    });
    set
}

/// Flags of a vector `bitcast` (lane counts may differ: the byte order is then needed).
pub(super) fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl Lower<'_, '_> {
    /// The shape of `ty` when vector registers are on and `ty` has one.
    pub(in crate::codegen) fn register_shape(&self, ty: &Type) -> Option<Shape> {
        if self.vector_registers {
            shape(ty)
        } else {
            None
        }
    }

    /// The register shape of local `id` when it is to live in registers: a vector of a
    /// register shape, never written a component at a time ([`component_written`]).
    pub(in crate::codegen) fn local_shape(&self, id: LocalId) -> Option<Shape> {
        if self.component_written.contains(&id) {
            return None;
        }
        self.register_shape(&self.func.local(id).ty.ty)
    }

    /// Register-typed SSA variables for a vector variable of shape `s`.
    pub(in crate::codegen) fn packed_storage(&mut self, s: Shape) -> super::Storage {
        let vars = (0..s.registers())
            .map(|_| self.b.declare_var(s.vt))
            .collect();
        super::Storage::Packed(vars, s)
    }

    /// `(register, lane)` when `v` is an `extractlane`.
    pub(super) fn extracted(&self, v: Value) -> Option<(Value, u8)> {
        let dfg = &self.b.func.dfg;
        let v = dfg.resolve_aliases(v);
        let inst = dfg.value_def(v).inst()?;
        match dfg.insts[inst] {
            InstructionData::BinaryImm8 {
                opcode: Opcode::Extractlane,
                arg,
                imm,
            } => Some((dfg.resolve_aliases(arg), imm)),
            _ => None,
        }
    }

    /// The register whose lanes `chunk` is, in order.
    pub(super) fn whole_register(&self, chunk: &[Value], vt: ir::Type) -> Option<Value> {
        let (first, _) = self.extracted(chunk[0])?;
        if self.b.func.dfg.value_type(first) != vt {
            return None;
        }
        chunk
            .iter()
            .enumerate()
            .all(|(i, &x)| self.extracted(x) == Some((first, i as u8)))
            .then_some(first)
    }

    /// The registers `lanes` are, when they are exactly the lanes of registers of `s`.
    pub(in crate::codegen) fn in_registers(&self, lanes: &[Value], s: &Shape) -> Option<Lanes> {
        if lanes.len() != s.n {
            return None;
        }
        (0..s.registers())
            .map(|r| self.whole_register(&lanes[s.range(r)], s.vt))
            .collect()
    }

    /// The bits of an integer or float constant instruction.
    pub(super) fn constant_bits(&self, v: Value) -> Option<u64> {
        let dfg = &self.b.func.dfg;
        let inst = dfg.value_def(dfg.resolve_aliases(v)).inst()?;
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits() as u64),
            InstructionData::UnaryIeee32 {
                opcode: Opcode::F32const,
                imm,
            } => Some(u64::from(imm.bits())),
            InstructionData::UnaryIeee64 {
                opcode: Opcode::F64const,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    /// Whether packing `lanes` into registers is cheap: they are registers already, one
    /// value repeated (a splat), or constants. `Some(true)` for registers.
    pub(super) fn cheap(&self, lanes: &[Value], s: &Shape) -> Option<bool> {
        if self.in_registers(lanes, s).is_some() {
            return Some(true);
        }
        let splat = lanes.iter().all(|&x| x == lanes[0]);
        let constant = lanes.iter().all(|&x| self.constant_bits(x).is_some());
        (lanes.len() == s.n && (splat || constant)).then_some(false)
    }

    /// Whether an operation on operands `args` is better done in registers: every operand
    /// is cheap to pack and one at least is in registers already.
    pub(super) fn worth(&self, args: &[&[Value]], s: &Shape) -> bool {
        let shaped: Vec<(&[Value], &Shape)> = args.iter().map(|&a| (a, s)).collect();
        self.worth_shaped(&shaped)
    }

    /// [`Lower::worth`] for operands of different shapes (`select`'s condition).
    pub(super) fn worth_shaped(&self, args: &[(&[Value], &Shape)]) -> bool {
        let mut any = false;
        for &(a, s) in args {
            match self.cheap(a, s) {
                Some(r) => any |= r,
                None => return false,
            }
        }
        any
    }

    /// `lanes` (the components of a value of shape `s`) as registers: the registers they
    /// were taken from, a constant, a splat, a shuffle of one or two registers, or lanes
    /// inserted one by one into the register most of them come from.
    pub(in crate::codegen) fn registers(&mut self, lanes: &[Value], s: &Shape) -> Lanes {
        (0..s.registers())
            .map(|r| self.register(&lanes[s.range(r)], s))
            .collect()
    }

    pub(super) fn register(&mut self, chunk: &[Value], s: &Shape) -> Value {
        if let Some(v) = self.whole_register(chunk, s.vt) {
            return v;
        }
        let bytes = s.lane.bytes() as usize;
        if let Some(bits) = chunk
            .iter()
            .map(|&x| self.constant_bits(x))
            .collect::<Option<Vec<u64>>>()
        {
            let mut data = Vec::with_capacity(16);
            for i in 0..s.per {
                let b = bits.get(i).copied().unwrap_or(0);
                data.extend_from_slice(&b.to_le_bytes()[..bytes]);
            }
            let handle = self.b.func.dfg.constants.insert(ConstantData::from(data));
            return self.b.ins().vconst(s.vt, handle);
        }
        if let Some(v) = self.shuffled(chunk, s) {
            return v;
        }
        // Start from the register most lanes already sit in, else a splat of lane 0.
        let mut best: Option<(Value, usize)> = None;
        for &x in chunk {
            if let Some((v, _)) = self.extracted(x)
                && self.b.func.dfg.value_type(v) == s.vt
            {
                let count = chunk
                    .iter()
                    .enumerate()
                    .filter(|&(i, &y)| self.extracted(y) == Some((v, i as u8)))
                    .count();
                if best.is_none_or(|(_, c)| count > c) {
                    best = Some((v, count));
                }
            }
        }
        let extracted: Vec<Option<(Value, u8)>> =
            chunk.iter().map(|&x| self.extracted(x)).collect();
        let (mut reg, keep): (Value, Vec<bool>) = match best {
            Some((v, c)) if c > 0 => (
                v,
                (0..chunk.len())
                    .map(|i| extracted[i] == Some((v, i as u8)))
                    .collect(),
            ),
            _ => (
                self.b.ins().splat(s.vt, chunk[0]),
                chunk.iter().map(|&x| x == chunk[0]).collect(),
            ),
        };
        for (i, &x) in chunk.iter().enumerate() {
            if !keep[i] {
                reg = self.b.ins().insertlane(reg, x, i as u8);
            }
        }
        reg
    }

    /// A register whose lanes all come from one or two registers of the same type (a
    /// swizzle, `.even` / `.odd`, `shuffle`): one byte shuffle.
    pub(super) fn shuffled(&mut self, chunk: &[Value], s: &Shape) -> Option<Value> {
        let mut sources: Vec<Value> = Vec::new();
        let mut picks = Vec::with_capacity(chunk.len());
        for &x in chunk {
            let (v, lane) = self.extracted(x)?;
            if self.b.func.dfg.value_type(v) != s.vt {
                return None;
            }
            let k = match sources.iter().position(|&u| u == v) {
                Some(k) => k,
                None if sources.len() < 2 => {
                    sources.push(v);
                    sources.len() - 1
                }
                None => return None,
            };
            picks.push(k * s.per + usize::from(lane));
        }
        let bytes = s.lane.bytes() as usize;
        let mut mask = Vec::with_capacity(16);
        for i in 0..s.per {
            let p = picks.get(i).copied().unwrap_or(0);
            for b in 0..bytes {
                mask.push((p * bytes + b) as u8);
            }
        }
        let a = self.b.ins().bitcast(types::I8X16, little(), sources[0]);
        let b = match sources.get(1) {
            Some(&v) => self.b.ins().bitcast(types::I8X16, little(), v),
            None => a,
        };
        let handle = self.b.func.dfg.immediates.push(ConstantData::from(mask));
        let r = self.b.ins().shuffle(a, b, handle);
        Some(self.b.ins().bitcast(s.vt, little(), r))
    }

    /// The components of registers of shape `s`.
    pub(in crate::codegen) fn components(&mut self, regs: &[Value], s: &Shape) -> Lanes {
        (0..s.n)
            .map(|c| self.b.ins().extractlane(regs[c / s.per], (c % s.per) as u8))
            .collect()
    }

    /// A value of shape `s` read from `addr`: whole registers by vector loads, a partial
    /// one (the last of a 3-vector) lane by lane, so that no byte past the value is read.
    pub(in crate::codegen) fn load_registers(
        &mut self,
        addr: Value,
        s: &Shape,
        flags: MemFlagsData,
    ) -> Lanes {
        let size = s.lane.bytes() as i32;
        let mut lanes = Vec::with_capacity(s.n);
        for r in 0..s.registers() {
            if s.full(r) {
                let offset = (r * s.per) as i32 * size;
                let reg = self.b.ins().load(s.vt, flags, addr, offset);
                lanes.extend(self.components(&[reg], &Shape { n: s.per, ..*s }));
            } else {
                for c in s.range(r) {
                    lanes.push(self.b.ins().load(s.lane, flags, addr, c as i32 * size));
                }
            }
        }
        lanes
    }

    /// Stores `lanes` of shape `s` at `addr`: a register's lanes in registers already by
    /// one vector store, other lanes one by one.
    pub(in crate::codegen) fn store_registers(
        &mut self,
        addr: Value,
        lanes: &[Value],
        s: &Shape,
        flags: MemFlagsData,
    ) {
        let size = s.lane.bytes() as i32;
        for r in 0..s.registers() {
            let range = s.range(r);
            let whole = if s.full(r) {
                self.whole_register(&lanes[range.clone()], s.vt)
            } else {
                None
            };
            match whole {
                Some(reg) => {
                    let offset = range.start as i32 * size;
                    self.b.ins().store(flags, reg, addr, offset);
                }
                None => {
                    for c in range {
                        self.b.ins().store(flags, lanes[c], addr, c as i32 * size);
                    }
                }
            }
        }
    }
}
