//! Addresses of memory places: what a pointer points to, and elements of arrays in memory
//! (the kernel's `__local` arrays, program-scope `__constant` arrays). `t[ly][lx]` is the
//! array's address plus the scaled index, so that a consecutive index gives one vector
//! access, as `p[i]` through a pointer does.

use cranelift_codegen::ir::InstBuilder;

use super::super::func::{PlaceRef, Result, unsupported};
use super::WIDTH;
use super::expr::index_of;
use super::lower::VecLower;
use super::value::VVal;
use crate::frontend::tir::{Place, PlaceKind, Rounding};
use crate::frontend::types::{AddressSpace, Scalar, Type};

impl VecLower<'_, '_> {
    /// Whether [`Self::place_address`] computes the address of `p`: a dereferenced pointer,
    /// or an element of an array in memory.
    pub(super) fn memory_place(&self, p: &Place) -> bool {
        fn in_memory(v: &VecLower, p: &Place) -> bool {
            match &p.kind {
                PlaceKind::Local(id) => {
                    v.f.local(*id).ty.space == AddressSpace::Local
                        && id.0 >= v.f.params
                        && v.uniform.contains(id)
                }
                PlaceKind::Global(_) => true,
                PlaceKind::Element { array, .. } => in_memory(v, array),
                _ => false,
            }
        }
        match &p.kind {
            PlaceKind::Deref(_) => true,
            PlaceKind::Element { .. } => in_memory(self, p),
            _ => false,
        }
    }

    /// The address of the memory place `p` ([`Self::memory_place`]) in each work-item; its
    /// parts are evaluated once each.
    pub(super) fn place_address(&mut self, p: &Place) -> Result<VVal> {
        if self.place_uniform(p) && !matches!(p.kind, PlaceKind::Deref(_)) {
            let PlaceRef::Mem(a) = self.l.place(p)? else {
                return unsupported("an array element that is not in memory");
            };
            return Ok(VVal::U(vec![a]));
        }
        let (array, index) = match &p.kind {
            PlaceKind::Deref(ptr) => return self.vexpr(ptr),
            PlaceKind::Element { array, index } => (array, index),
            _ => return unsupported("an array element that is not in memory"),
        };
        let base = self.place_address(array)?;
        let size = p.ty.ty.size() as i64;
        let i = self.vexpr(index)?;
        let signed = index.ty.scalar().is_some_and(Scalar::is_signed);
        if let (VVal::U(b), Some(index)) = (&base, index_of(&i))
            && index.is_32_bits(&self.l.b.func.dfg)
        {
            // An `int`/`uint` index in a register, or a sequence that may wrap: kept as it
            // is, consecutive or not.
            return Ok(VVal::Indexed {
                base: b[0],
                index,
                signed,
                scale: size,
            });
        }
        let i = if index.ty.scalar().is_some_and(|s| s.bits() == 64) {
            i
        } else {
            let long = Type::Scalar(if signed { Scalar::Long } else { Scalar::ULong });
            self.convert_vals(i, &index.ty, &long, Some((false, Rounding::Default)))?
        };
        Ok(match (&base, &i) {
            (
                VVal::U(b),
                VVal::Seq {
                    base: ib, stride, ..
                },
            ) => {
                let scaled = self.l.b.ins().imul_imm_s(*ib, size);
                VVal::Seq {
                    base: self.l.b.ins().iadd(b[0], scaled),
                    stride: stride * size,
                    exact: true,
                    id: false,
                }
            }
            (
                VVal::Seq {
                    base: bb, stride, ..
                },
                VVal::U(o),
            ) => {
                let scaled = self.l.b.ins().imul_imm_s(o[0], size);
                VVal::Seq {
                    base: self.l.b.ins().iadd(*bb, scaled),
                    stride: *stride,
                    exact: true,
                    id: false,
                }
            }
            _ => {
                let (bl, il) = (self.lanes(&base), self.lanes(&i));
                VVal::L(
                    (0..WIDTH as usize)
                        .map(|k| {
                            let scaled = self.l.b.ins().imul_imm_s(il[k][0], size);
                            vec![self.l.b.ins().iadd(bl[k][0], scaled)]
                        })
                        .collect(),
                )
            }
        })
    }
}
