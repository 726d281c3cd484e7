//! The host target and the JIT module of one program build.
//!
//! The ISA is the host's, detected by `cranelift-native`, so AVX, AVX2, FMA and AVX-512
//! encodings are used where the CPU has them. One [`JITModule`] holds all the code of one
//! program build: cranelift-jit frees code only per module, so the module's lifetime is the
//! program's. Each module registers its code in [`code_ranges`], so that a fault in a kernel
//! can be told from any other.

pub mod code_ranges;
pub mod watchdog;

use std::sync::Arc;

use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};

/// Why the JIT could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JitError(pub String);

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JitError {}

/// The host ISA, optimizing for speed.
pub fn host_isa() -> Result<OwnedTargetIsa, JitError> {
    isa_at("speed")
}

/// The host ISA that only lowers: code optimized by [`host_isa`]'s mid-end and then
/// scheduled (`codegen::schedule`) is compiled by this one, whose mid-end leaves the
/// instructions' order as it is (Cranelift's e-graph pass would elaborate them anew).
pub fn lowering_isa() -> Result<OwnedTargetIsa, JitError> {
    isa_at("none")
}

/// The host ISA at Cranelift's `opt_level`.
fn isa_at(opt_level: &str) -> Result<OwnedTargetIsa, JitError> {
    let mut flags = settings::builder();
    let set = |flags: &mut settings::Builder, name: &str, value: &str| {
        flags
            .set(name, value)
            .map_err(|e| JitError(format!("cranelift flag {name}: {e}")))
    };
    set(&mut flags, "opt_level", opt_level)?;
    // Cranelift checks its IR before and after each pass unless told not to: a fifth of a
    // release build's time. Debug builds (and the tests) keep the checks, so IR that
    // lowering gets wrong is still caught where it is made.
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    set(&mut flags, "enable_verifier", verify)?;
    // JIT'd code is called in place; position independence would only cost.
    set(&mut flags, "is_pic", "false")?;
    // Frames larger than a page touch each page in order, so a kernel whose private memory
    // outgrows the worker's stack faults on the guard page instead of silently writing
    // into whatever lies below the stack (another worker's stack).
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    let isa = cranelift_native::builder()
        .map_err(|e| JitError(format!("this CPU is not supported by Cranelift: {e}")))?;
    isa.finish(settings::Flags::new(flags))
        .map_err(|e| JitError(format!("host ISA: {e}")))
}

/// A fresh JIT module for one program build, resolving calls to the given symbols (the
/// builtins the compiled code calls by name).
pub fn new_module(
    symbols: impl IntoIterator<Item = (String, *const u8)>,
) -> Result<JITModule, JitError> {
    let isa: Arc<_> = host_isa()?;
    let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    builder.symbols(symbols);
    let provider = code_ranges::RecordingProvider::new().map_err(|e| JitError(e.to_string()))?;
    builder.memory_provider(Box::new(provider));
    Ok(JITModule::new(builder))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{AbiParam, InstBuilder, types};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
    use cranelift_module::{Linkage, Module};

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn host_isa_is_x64_with_the_cpus_features() {
        let isa = host_isa().expect("host ISA");
        assert_eq!(isa.name(), "x64");
        let has = |flag: &str| {
            isa.isa_flags()
                .iter()
                .any(|f| f.name == flag && f.as_bool() == Some(true))
        };
        assert_eq!(has("has_avx2"), std::is_x86_feature_detected!("avx2"));
        assert_eq!(has("has_fma"), std::is_x86_feature_detected!("fma"));
    }

    #[test]
    fn a_jitted_function_runs() {
        let mut module = new_module(Vec::new()).expect("module");
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(types::I32));
        sig.params.push(AbiParam::new(types::I32));
        sig.returns.push(AbiParam::new(types::I32));
        let id = module
            .declare_function("mul_add", Linkage::Local, &sig)
            .unwrap();
        let mut ctx = module.make_context();
        ctx.func.signature = sig;
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let (x, y) = (b.block_params(block)[0], b.block_params(block)[1]);
        let product = b.ins().imul(x, y);
        let sum = b.ins().iadd_imm_s(product, 1);
        b.ins().return_(&[sum]);
        b.seal_all_blocks();
        b.finalize(module.isa().frontend_config());
        module.define_function(id, &mut ctx).unwrap();
        module.finalize_definitions().unwrap();
        let code = module.get_finalized_function(id);
        // SAFETY: `code` was just compiled with the signature (i32, i32) -> i32 in the host's
        // default calling convention.
        let f: extern "C" fn(i32, i32) -> i32 = unsafe { std::mem::transmute(code) };
        assert_eq!(f(6, 7), 43);
        assert_eq!(f(-3, 5), -14);
    }
}
