//! Where things are: kernel arguments in the argument block, `__local` variables in the
//! work-group's local memory.

use std::collections::HashMap;

use crate::frontend::tir::{self, AccessQualifier, KernelInfo, LocalId};
use crate::frontend::types::{AddressSpace, Type};
use crate::kernel::{KernelParam, ParamInfo, ParamKind};

/// The argument block of a kernel: each parameter's offset, and the block's size.
pub struct ArgLayout {
    pub offsets: Vec<usize>,
    pub size: usize,
}

/// How a parameter of type `ty` is passed.
pub fn param_kind(ty: &Type) -> ParamKind {
    match ty {
        Type::Pointer(p) => match p.space {
            AddressSpace::Local => ParamKind::Local,
            space => ParamKind::Buffer {
                constant: space == AddressSpace::Constant,
            },
        },
        Type::Image(k) => ParamKind::Image(*k),
        Type::Sampler => ParamKind::Sampler,
        other => ParamKind::Value {
            size: other.size() as usize,
        },
    }
}

/// Offsets of the parameters in the argument block (each aligned to its type), and the
/// bytes of kernel-scope `__local` variables.
pub fn kernel_layout(f: &tir::Function) -> (ArgLayout, usize) {
    let mut offsets = Vec::new();
    let mut size = 0usize;
    for id in f.param_ids() {
        let ty = &f.local(id).ty.ty;
        let (bytes, align) = match param_kind(ty) {
            ParamKind::Value { size } => (size, ty.align() as usize),
            ParamKind::Sampler => (4, 4),
            _ => (8, 8),
        };
        size = size.next_multiple_of(align.max(1));
        offsets.push(size);
        size += bytes;
    }
    let static_local = local_offsets(f).1;
    (ArgLayout { offsets, size }, static_local)
}

/// The offset of each kernel-scope `__local` variable in local memory, and their total size
/// (16-byte aligned, so local arguments that follow are aligned for any type).
pub fn local_offsets(f: &tir::Function) -> (HashMap<LocalId, u64>, usize) {
    let mut map = HashMap::new();
    let mut size = 0u64;
    for (i, local) in f.locals.iter().enumerate().skip(f.params as usize) {
        if local.ty.space == AddressSpace::Local {
            size = size.next_multiple_of(local.ty.ty.align().max(1));
            map.insert(LocalId(i as u32), size);
            size += local.ty.ty.size();
        }
    }
    (map, size.next_multiple_of(16) as usize)
}

/// `CL_KERNEL_PRIVATE_MEM_SIZE`: the bytes of the kernel's private variables (its own; the
/// functions it calls add their stack frames).
pub fn private_size(f: &tir::Function) -> usize {
    f.locals
        .iter()
        .filter(|l| l.ty.space != AddressSpace::Local)
        .map(|l| l.ty.ty.size() as usize)
        .sum()
}

/// `clGetKernelArgInfo` values of OpenCL 1.2, from the Khronos headers.
mod arg_info {
    pub use khronos_headers::{
        CL_KERNEL_ARG_ACCESS_NONE as ACCESS_NONE,
        CL_KERNEL_ARG_ACCESS_READ_ONLY as ACCESS_READ_ONLY,
        CL_KERNEL_ARG_ACCESS_READ_WRITE as ACCESS_READ_WRITE,
        CL_KERNEL_ARG_ACCESS_WRITE_ONLY as ACCESS_WRITE_ONLY,
        CL_KERNEL_ARG_ADDRESS_CONSTANT as ADDRESS_CONSTANT,
        CL_KERNEL_ARG_ADDRESS_GLOBAL as ADDRESS_GLOBAL,
        CL_KERNEL_ARG_ADDRESS_LOCAL as ADDRESS_LOCAL,
        CL_KERNEL_ARG_ADDRESS_PRIVATE as ADDRESS_PRIVATE, CL_KERNEL_ARG_TYPE_CONST as TYPE_CONST,
        CL_KERNEL_ARG_TYPE_RESTRICT as TYPE_RESTRICT, CL_KERNEL_ARG_TYPE_VOLATILE as TYPE_VOLATILE,
    };
}

/// The runtime's view of a kernel's parameters.
pub fn kernel_params(f: &tir::Function, info: &KernelInfo, layout: &ArgLayout) -> Vec<KernelParam> {
    f.param_ids()
        .zip(&layout.offsets)
        .enumerate()
        .map(|(i, (id, &offset))| {
            let ty = &f.local(id).ty.ty;
            let p = info.params.get(i);
            let address_qualifier = match ty {
                Type::Pointer(pointee) => match pointee.space {
                    AddressSpace::Global => arg_info::ADDRESS_GLOBAL,
                    AddressSpace::Local => arg_info::ADDRESS_LOCAL,
                    AddressSpace::Constant => arg_info::ADDRESS_CONSTANT,
                    AddressSpace::Private => arg_info::ADDRESS_PRIVATE,
                },
                // Images are global memory objects.
                Type::Image(_) => arg_info::ADDRESS_GLOBAL,
                _ => arg_info::ADDRESS_PRIVATE,
            };
            let access_qualifier = match (ty, p.and_then(|p| p.access)) {
                (Type::Image(_), Some(AccessQualifier::WriteOnly)) => arg_info::ACCESS_WRITE_ONLY,
                (Type::Image(_), Some(AccessQualifier::ReadWrite)) => arg_info::ACCESS_READ_WRITE,
                (Type::Image(_), _) => arg_info::ACCESS_READ_ONLY,
                _ => arg_info::ACCESS_NONE,
            };
            let mut type_qualifier = 0;
            if let Some(p) = p {
                // "CL_KERNEL_ARG_TYPE_CONST is returned if the argument is a pointer and the
                // referenced type is declared with const" (or is in __constant memory).
                let constant_space =
                    matches!(ty, Type::Pointer(q) if q.space == AddressSpace::Constant);
                if p.is_const || constant_space {
                    type_qualifier |= arg_info::TYPE_CONST;
                }
                if p.is_restrict {
                    type_qualifier |= arg_info::TYPE_RESTRICT;
                }
                if p.is_volatile {
                    type_qualifier |= arg_info::TYPE_VOLATILE;
                }
            }
            KernelParam {
                kind: param_kind(ty),
                offset,
                info: ParamInfo {
                    name: p.map_or_else(String::new, |p| p.name.to_string()),
                    type_name: p.map_or_else(|| ty.to_string(), |p| p.type_name.clone()),
                    address_qualifier,
                    access_qualifier,
                    type_qualifier,
                },
            }
        })
        .collect()
}
