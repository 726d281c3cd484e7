//! What the JIT's callers must know about the calling convention of the builtins.
//!
//! The x86-64 System V convention, as Rust (LLVM) implements it, has the caller extend an
//! 8- or 16-bit integer argument to 32 bits — sign-extended for a signed type, zero-extended
//! for an unsigned one — and the callee relies on it. Cranelift extends an argument only when
//! its signature says how (`AbiParam::sext` / `uext`), so the compiler asks here for every
//! narrow parameter of every builtin it imports.

use crate::integer::IntOp;

/// Whether parameter `index` of the builtin `symbol` is a signed type, for its 8- and 16-bit
/// integer parameters; `None` when `symbol` is not a builtin with narrow integer
/// parameters (the caller then has no safe way to pass one and must refuse).
pub fn narrow_param_is_signed(symbol: &str, index: usize) -> Option<bool> {
    if symbol == "clift_half_to_f32" || symbol == "clift_half_bits_to_f32" {
        return Some(false);
    }
    if let Some(e) = crate::integer::externs()
        .into_iter()
        .find(|e| e.name == symbol)
    {
        // upsample(hi, lo): `lo` is the unsigned type of the same size as `hi`.
        let unsigned_lo = e.op == IntOp::Upsample && index == 1;
        return Some(e.ty.is_signed() && !unsigned_lo);
    }
    crate::convert::externs()
        .into_iter()
        .find(|e| e.name == symbol)
        .map(|e| e.src.is_signed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_parameters_have_their_type_s_signedness() {
        assert_eq!(narrow_param_is_signed("clift_abs_diff_i8", 0), Some(true));
        assert_eq!(narrow_param_is_signed("clift_abs_diff_u16", 1), Some(false));
        assert_eq!(narrow_param_is_signed("clift_upsample_i8", 0), Some(true));
        assert_eq!(narrow_param_is_signed("clift_upsample_i8", 1), Some(false));
        assert_eq!(
            narrow_param_is_signed("clift_convert_float_rtz_char", 0),
            Some(true)
        );
        assert_eq!(
            narrow_param_is_signed("clift_convert_float_rtz_ushort", 0),
            Some(false)
        );
        assert_eq!(narrow_param_is_signed("clift_half_to_f32", 0), Some(false));
        assert_eq!(
            narrow_param_is_signed("clift_half_bits_to_f32", 0),
            Some(false)
        );
        assert_eq!(narrow_param_is_signed("clift_sin_f32", 0), None);
    }
}
