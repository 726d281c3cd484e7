//! Safe mode (`CLIFT_SAFE=1` or `-cl-clift-safe`): every access through a pointer or an
//! array index is checked against the bounds of the object it points into.
//!
//! Provenance is followed through the lowering: each pointer value the code generator
//! makes gets the `(base, end)` of its object where it can know them — a kernel's pointer
//! parameter (the buffer's or `__local` argument's size from the launch's table,
//! `clift_builtins::safe::SafeLaunch`), a variable in memory (private and `__local` arrays
//! and structs, program-scope `__constant` variables), and whatever pointer arithmetic,
//! casts, `&` and indexing derive from those. Pointer variables carry their object in two
//! shadow variables. A pointer whose object the generator cannot follow (loaded from
//! memory, a helper function's parameter, a call's result, a `?:`) gets it at run time from
//! the launch's table (`clift_safe_object`, by address space); a private pointer of unknown
//! origin is only checked against the null page.
//!
//! A failing check records the launch's first violation (site, address, size, object) in
//! its table and traps; the runtime's fault handler ends the event with
//! the kernel's fault status and the runtime names the site from the kernel's site table
//! (file:line:col of the access).

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, StackSlot, Value, types};
use cranelift_frontend::Variable;
use cranelift_module::Module;

use super::{Lower, PlaceRef, Result, Storage};
use crate::codegen::{CodegenError, ModuleState};
use crate::frontend::source::Span;
use crate::frontend::tir::{self, LocalId, Place, PlaceKind};
use crate::frontend::types::{AddressSpace, Type};
use crate::kernel::WorkGroup;
use clift_builtins::safe::{SafeLaunch, WRITE_BIT, space};

/// The trap code of a bounds violation (for the CLIF reader; every trap ends the same way).
pub const TRAP_CODE: u8 = 0x53;

/// What safe mode keeps while lowering one function.
#[derive(Default)]
pub(in crate::codegen) struct SafeLower {
    /// The object `(base, end)` of pointer values whose object is known.
    bounds: HashMap<Value, (Value, Value)>,
    /// The object of each pointer variable held in SSA variables.
    shadows: HashMap<LocalId, (Variable, Variable)>,
    /// Two words `clift_safe_object` writes its answer to.
    out: Option<StackSlot>,
}

/// The `space` argument of `clift_safe_object` for memory of `space`.
fn space_code(s: AddressSpace) -> u64 {
    match s {
        AddressSpace::Global => space::GLOBAL,
        AddressSpace::Constant => space::CONSTANT,
        AddressSpace::Local => space::LOCAL,
        AddressSpace::Private => space::PRIVATE,
    }
}

/// Whether an access to `p` can leave its object: it goes through a pointer or an index.
/// A variable (or a field or lanes of one) accessed by name is always in bounds.
fn goes_through_memory(p: &Place) -> bool {
    match &p.kind {
        PlaceKind::Deref(_) | PlaceKind::Element { .. } => true,
        PlaceKind::Field { record, .. } => goes_through_memory(record),
        PlaceKind::Lanes { vector, .. } => goes_through_memory(vector),
        PlaceKind::Local(_)
        | PlaceKind::Global(_)
        | PlaceKind::Value(_)
        | PlaceKind::CompoundLiteral { .. } => false,
    }
}

/// The data object listing the program-scope `__constant` variables for
/// `clift_safe_object`: their count, then `(address, size)` of each.
pub(in crate::codegen) fn define_statics(
    state: &mut ModuleState,
    program: &tir::Program,
) -> std::result::Result<(), CodegenError> {
    let id = state
        .module
        .declare_data(
            "clift_safe_statics",
            cranelift_module::Linkage::Local,
            false,
            false,
        )
        .map_err(|e| CodegenError(e.to_string()))?;
    let n = program.globals.len();
    let mut bytes = vec![0u8; 8 + 16 * n];
    bytes[..8].copy_from_slice(&(n as u64).to_ne_bytes());
    for (i, g) in program.globals.iter().enumerate() {
        let at = 8 + 16 * i + 8;
        bytes[at..at + 8].copy_from_slice(&(g.init.len() as u64).to_ne_bytes());
    }
    let mut data = cranelift_module::DataDescription::new();
    data.define(bytes.into_boxed_slice());
    data.set_align(8);
    for (i, &global) in state.globals.iter().enumerate() {
        let gv = state.module.declare_data_in_data(global, &mut data);
        data.write_data_addr((8 + 16 * i) as u32, gv, 0);
    }
    state
        .module
        .define_data(id, &data)
        .map_err(|e| CodegenError(e.to_string()))?;
    state.safe_statics = Some(id);
    Ok(())
}

impl Lower<'_, '_> {
    /// Whether this function is built in safe mode.
    pub(in crate::codegen) fn safe(&self) -> bool {
        self.safe.is_some()
    }

    fn bounds_of(&self, v: Value) -> Option<(Value, Value)> {
        self.safe.as_ref()?.bounds.get(&v).copied()
    }

    fn note_bounds(&mut self, v: Value, bounds: (Value, Value)) {
        if let Some(s) = self.safe.as_mut() {
            s.bounds.insert(v, bounds);
        }
    }

    /// `to` points into the same object as `from` (pointer arithmetic, indexing).
    pub(in crate::codegen) fn same_object(&mut self, from: Value, to: Value) {
        if let Some(b) = self.bounds_of(from) {
            self.note_bounds(to, b);
        }
    }

    /// `addr` is the start of an object of `size` bytes (a variable in memory).
    pub(super) fn note_object(&mut self, addr: Value, size: u64) {
        if self.safe() {
            let end = self.b.ins().iadd_imm_s(addr, size as i64);
            self.note_bounds(addr, (addr, end));
        }
    }

    /// A pointer is dereferenced: if the generator does not know its object, it is found
    /// at run time from the pointer (before any index moves the address off it).
    pub(in crate::codegen) fn find_object(&mut self, pointer: Value, space: AddressSpace) {
        if self.safe() && self.bounds_of(pointer).is_none() {
            let bounds = self.object_of(pointer, space);
            self.note_bounds(pointer, bounds);
        }
    }

    /// A kernel's pointer parameter `index` has the value `pointer`: its object is the
    /// launch's `objects[index]`, `size` bytes from the pointer.
    pub(super) fn note_parameter(&mut self, index: usize, pointer: Value) {
        if !self.safe() {
            return;
        }
        // Loads that stay where they are (before the work-item loop): movable ones would be
        // placed at their uses, inside the loops.
        let flags = MemFlagsData::trusted().with_readonly();
        let group = self.group();
        let launch = self
            .b
            .ins()
            .load(types::I64, flags, group, WorkGroup::OFFSET_SAFE);
        let objects = self
            .b
            .ins()
            .load(types::I64, flags, launch, SafeLaunch::OFFSET_OBJECTS);
        let offset = index as i32 * SafeLaunch::OBJECT_SIZE + SafeLaunch::OBJECT_SIZE_FIELD;
        let size = self.b.ins().load(types::I64, flags, objects, offset);
        let end = self.b.ins().iadd(pointer, size);
        self.note_bounds(pointer, (pointer, end));
    }

    /// Gives each pointer variable held in SSA variables its two shadow variables.
    pub(super) fn declare_shadows(&mut self) {
        if !self.safe() {
            return;
        }
        for (i, local) in self.func.locals.iter().enumerate() {
            let is_var = matches!(self.storage.get(i), Some(Storage::Vars(_)));
            if is_var && matches!(local.ty.ty, Type::Pointer(_)) {
                let shadow = (
                    self.b.declare_var(types::I64),
                    self.b.declare_var(types::I64),
                );
                if let Some(s) = self.safe.as_mut() {
                    s.shadows.insert(LocalId(i as u32), shadow);
                }
            }
        }
    }

    /// A pointer variable was read as `value`: its object is the shadows'.
    pub(super) fn shadow_load(&mut self, id: LocalId, value: &[Value]) {
        let Some(&(base, end)) = self.safe.as_ref().and_then(|s| s.shadows.get(&id)) else {
            return;
        };
        if let [v] = value {
            let bounds = (self.b.use_var(base), self.b.use_var(end));
            self.note_bounds(*v, bounds);
        }
    }

    /// A pointer variable gets `value`: the shadows get its object, looked up at run time
    /// if the generator does not know it.
    pub(super) fn shadow_store(&mut self, id: LocalId, value: &[Value]) {
        let Some(&(base, end)) = self.safe.as_ref().and_then(|s| s.shadows.get(&id)) else {
            return;
        };
        let [v] = value else { return };
        let bounds = match self.bounds_of(*v) {
            Some(b) => b,
            None => {
                let s = match &self.func.local(id).ty.ty {
                    Type::Pointer(p) => p.space,
                    _ => AddressSpace::Private,
                };
                self.object_of(*v, s)
            }
        };
        self.b.def_var(base, bounds.0);
        self.b.def_var(end, bounds.1);
    }

    /// The launch's table (`WorkGroup::safe`).
    fn launch(&mut self) -> Value {
        let group = self.group();
        self.b.ins().load(
            types::I64,
            super::invariant(),
            group,
            WorkGroup::OFFSET_SAFE,
        )
    }

    /// The object of `space` that holds `addr`, found at run time in the launch's table.
    fn object_of(&mut self, addr: Value, s: AddressSpace) -> (Value, Value) {
        if s == AddressSpace::Private {
            // Private objects are not in the table: anything but the null page.
            let base = self
                .b
                .ins()
                .iconst(types::I64, clift_builtins::safe::NULL_PAGE as i64);
            let end = self.b.ins().iconst(types::I64, -1);
            return (base, end);
        }
        let slot = match self.safe.as_ref().and_then(|s| s.out) {
            Some(slot) => slot,
            None => {
                let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
                    ir::StackSlotKind::ExplicitSlot,
                    16,
                    3,
                ));
                if let Some(s) = self.safe.as_mut() {
                    s.out = Some(slot);
                }
                slot
            }
        };
        let launch = self.launch();
        let group = self.group();
        let local = self.b.ins().load(
            types::I64,
            super::invariant(),
            group,
            WorkGroup::OFFSET_LOCAL_MEMORY,
        );
        let statics = match self.state.safe_statics {
            Some(id) => {
                let gv = self.state.module.declare_data_in_func(id, self.b.func);
                self.b.ins().symbol_value(types::I64, gv)
            }
            None => self.b.ins().iconst(types::I64, 0),
        };
        let space = self.b.ins().iconst(types::I64, space_code(s) as i64);
        let out = self.b.ins().stack_addr(types::I64, slot, 0);
        // The call's result is in memory: `out` is only read back here.
        if self
            .call_symbol_multi(
                "clift_safe_object",
                &[launch, local, statics, addr, space, out],
                &[],
            )
            .is_err()
        {
            return (addr, addr);
        }
        let flags = MemFlagsData::trusted();
        let base = self.b.ins().load(types::I64, flags, out, 0);
        let end = self.b.ins().load(types::I64, flags, out, 8);
        (base, end)
    }

    /// [`Lower::place`] for an access (`write`: a store) of the place's whole type, checked
    /// in safe mode.
    pub(super) fn access_place(&mut self, p: &Place, write: bool) -> Result<PlaceRef> {
        let r = self.place(p)?;
        if self.safe() && goes_through_memory(p) {
            let mut inner = &r;
            let mut ty = p.ty.ty.clone();
            if let PlaceRef::Lanes(base, _, s, n) = &r {
                inner = &**base;
                ty = Type::Vector(*s, *n);
            }
            if let PlaceRef::Mem(addr) = inner {
                let size = lanes_size(&ty);
                self.check_access(*addr, size, p.ty.space, p.span, write)?;
            }
        }
        Ok(r)
    }

    /// Checks an access of `size` bytes at `addr` in memory of `space` (in safe mode): on to
    /// the next instruction when the object of `addr` holds it, else the violation is
    /// recorded and the work-group stops.
    pub(in crate::codegen) fn check_access(
        &mut self,
        addr: Value,
        size: u64,
        space: AddressSpace,
        span: Span,
        write: bool,
    ) -> Result<()> {
        if !self.safe() {
            return Ok(());
        }
        let (base, end) = match self.bounds_of(addr) {
            Some(b) => b,
            None => self.object_of(addr, space),
        };
        // (An address within `size` bytes of 2^64, whose end wraps, is not user memory: the
        // access faults, and the fault handler reports it.)
        let top = self.b.ins().iadd_imm_s(addr, size as i64);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, addr, base);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, top, end);
        let bad = self.b.ins().bor(below, over);
        let (fail, ok) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(bad, fail, &[], ok, &[]);
        self.b.set_cold_block(fail);
        self.b.switch_to_block(fail);
        self.b.seal_block(fail);
        self.state.safe_sites.push(span);
        let site = self.state.safe_sites.len() as u64 | if write { WRITE_BIT } else { 0 };
        self.record_violation(site, addr, size, base, end);
        self.b.ins().trap(ir::TrapCode::unwrap_user(TRAP_CODE));
        self.b.switch_to_block(ok);
        self.b.seal_block(ok);
        Ok(())
    }
}

impl Lower<'_, '_> {
    /// Records a violation in the launch's table if it is the first
    /// (`clift_builtins::safe::Violation`), without a call: a call, even on a cold path,
    /// makes the register allocator keep a loop's values on the stack.
    fn record_violation(&mut self, site: u64, addr: Value, size: u64, base: Value, end: Value) {
        let launch = self.launch();
        let flags = MemFlagsData::trusted();
        let (zero, claimed) = (
            self.b.ins().iconst(types::I64, 0),
            self.b.ins().iconst(types::I64, -1),
        );
        // `site` is the first field: claimed with a compare-and-swap from 0, the other
        // fields written, then the site (the runtime reads them after the launch).
        let old = self.b.ins().atomic_cas(flags, launch, zero, claimed);
        let first = self.b.ins().icmp_imm_s(IntCC::Equal, old, 0);
        let (write, done) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(first, write, &[], done, &[]);
        self.b.set_cold_block(write);
        self.b.switch_to_block(write);
        self.b.seal_block(write);
        let bytes = self.b.ins().iconst(types::I64, size as i64);
        for (offset, v) in [
            (SafeLaunch::OFFSET_ADDRESS, addr),
            (SafeLaunch::OFFSET_SIZE, bytes),
            (SafeLaunch::OFFSET_BASE, base),
            (SafeLaunch::OFFSET_END, end),
        ] {
            self.b.ins().store(flags, v, launch, offset);
        }
        self.b.ins().fence();
        let site = self.b.ins().iconst(types::I64, site as i64);
        self.b
            .ins()
            .store(flags, site, launch, SafeLaunch::OFFSET_SITE);
        self.b.ins().jump(done, &[]);
        self.b.set_cold_block(done);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
    }
}

/// The bytes an access of a value of `ty` touches (3-vectors: 4 lanes in memory).
fn lanes_size(ty: &Type) -> u64 {
    match ty {
        Type::Vector(s, 3) => 3 * s.size(),
        ty => ty.size(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(kind: PlaceKind) -> Place {
        Place {
            kind,
            ty: crate::frontend::types::QualType::new(Type::int()),
            span: Span::default(),
        }
    }

    #[test]
    fn only_pointers_and_indexing_are_checked() {
        let var = || Box::new(place(PlaceKind::Local(LocalId(0))));
        assert!(!goes_through_memory(&place(PlaceKind::Local(LocalId(0)))));
        assert!(!goes_through_memory(&place(PlaceKind::Field {
            record: var(),
            field: 0
        })));
        let element = place(PlaceKind::Element {
            array: var(),
            index: Box::new(crate::frontend::tir::build::unit(Span::default())),
        });
        assert!(goes_through_memory(&element));
        assert!(goes_through_memory(&place(PlaceKind::Field {
            record: Box::new(element),
            field: 1
        })));
    }

    #[test]
    fn a_three_vector_access_touches_three_lanes() {
        use crate::frontend::types::Scalar;
        assert_eq!(lanes_size(&Type::Vector(Scalar::Float, 3)), 12);
        assert_eq!(lanes_size(&Type::Vector(Scalar::Float, 4)), 16);
        assert_eq!(lanes_size(&Type::Scalar(Scalar::Short)), 2);
    }
}
