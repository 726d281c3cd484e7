//! Builtin calls: inline instructions where Cranelift has them (work-item functions,
//! sqrt, fma, integer min/max, atomics, relational tests, vector loads and stores), and
//! calls into the builtins library (`clift_<name>_<type>`) for the rest, lane by lane.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, AtomicRmwOp, InstBuilder, MemFlagsData, Value, types};

use super::func::{Lanes, Lower, Result, constant_dimension, invariant, unsupported};
use super::item_context;
use super::ops::{clif_type, lane_types, mask, uextend_to};
use crate::frontend::tir::{BuiltinFunction as F, BuiltinId, Expr, Rounding};
use crate::frontend::types::{Scalar, Type};
use crate::kernel::WorkGroup;

/// The Rust type name the builtins library uses in integer symbols (`clift_mul_hi_i64`).
fn int_suffix(s: Scalar) -> &'static str {
    match s {
        Scalar::Char => "i8",
        Scalar::UChar => "u8",
        Scalar::Short => "i16",
        Scalar::UShort => "u16",
        Scalar::Int => "i32",
        Scalar::UInt => "u32",
        Scalar::Long => "i64",
        _ => "u64",
    }
}

fn float_suffix(s: Scalar) -> &'static str {
    if s == Scalar::Double { "f64" } else { "f32" }
}

impl Lower<'_, '_> {
    pub(super) fn builtin(&mut self, id: BuiltinId, args: &[Expr], ret: &Type) -> Result<Lanes> {
        let lanes = self.builtin_lanes(id, args, ret)?;
        if ret.element() == Some(Scalar::Half) {
            // half results (cl_khr_fp16) are computed in float: rounded once here (a no-op
            // for the exact ones, such as loads and fabs).
            return lanes.into_iter().map(|v| self.round_half(v)).collect();
        }
        Ok(lanes)
    }

    fn builtin_lanes(&mut self, id: BuiltinId, args: &[Expr], ret: &Type) -> Result<Lanes> {
        let function = id.function();
        if id.attributes().work_item_query {
            return self.work_item_function(function, args);
        }
        let values: Vec<Lanes> = args.iter().map(|a| self.expr(a)).collect::<Result<_>>()?;
        let arg_ty = |i: usize| args.get(i).map(|a| a.ty.clone()).unwrap_or(Type::Void);
        let elem = arg_ty(0).element().unwrap_or(Scalar::Int);
        match function {
            F::MemFence | F::ReadMemFence | F::WriteMemFence => {
                self.b.ins().fence();
                return Ok(Vec::new());
            }
            f if atomic_op(f).is_some() => return self.atomic(f, &values, args),
            F::Vload
            | F::Vstore
            | F::VloadHalf
            | F::VstoreHalf
            | F::VloadaHalf
            | F::VstoreaHalf => {
                return self.vector_memory(id, &values, args, ret);
            }
            F::AsyncWorkGroupCopy | F::AsyncWorkGroupStridedCopy => {
                return self.async_copy(function, &values, args);
            }
            F::WaitGroupEvents | F::Prefetch => return Ok(Vec::new()),
            F::Shuffle | F::Shuffle2 => return self.shuffle(&values, args, ret),
            F::ReadImagef
            | F::ReadImagei
            | F::ReadImageui
            | F::WriteImagef
            | F::WriteImagei
            | F::WriteImageui => {
                return self.image_access(function, &values, args);
            }
            F::GetImageWidth
            | F::GetImageHeight
            | F::GetImageDepth
            | F::GetImageChannelDataType
            | F::GetImageChannelOrder
            | F::GetImageDim
            | F::GetImageArraySize => return Ok(self.image_query(function, &values, args)),
            F::Printf => return self.printf(&values, args),
            F::Select => {
                if let Some(r) =
                    self.packed_select(&values[2], &values[1], &values[0], &arg_ty(2), ret)
                {
                    return Ok(r);
                }
                return Ok(self.select(&values, &arg_ty(2)));
            }
            F::Bitselect if elem == Scalar::Half => {
                // On the half's 16 bits, not on the float that holds it.
                return (0..values[0].len())
                    .map(|l| {
                        let [a, b, c] = [0, 1, 2].map(|i| values[i][l]);
                        let [a, b, c] = [a, b, c].map(|v| self.half_bits(v));
                        let (a, b, c) = (a?, b?, c?);
                        let r = self.bitselect(a, b, c);
                        self.call_symbol("clift_half_bits_to_f32", &[r], types::F32)
                    })
                    .collect();
            }
            F::Bitselect => {
                if let Some(r) = self.packed_bitselect(&values[0], &values[1], &values[2], ret) {
                    return Ok(r);
                }
                return Ok((0..values[0].len())
                    .map(|l| self.bitselect(values[0][l], values[1][l], values[2][l]))
                    .collect());
            }
            F::Any | F::All => {
                let mut acc = None;
                for &x in &values[0] {
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                    acc = Some(match acc {
                        None => neg,
                        Some(a) if function == F::Any => self.b.ins().bor(a, neg),
                        Some(a) => self.b.ins().band(a, neg),
                    });
                }
                let v = acc.unwrap_or_else(|| self.b.ins().iconst(types::I8, 0));
                return Ok(vec![uextend_to(&mut self.b, types::I32, v)]);
            }
            _ => {}
        }
        if function == F::Nan && ret.element() == Some(Scalar::Half) {
            // nan(ushortn) of cl_khr_fp16: a quiet half NaN carrying the low 10 bits.
            return values[0]
                .iter()
                .map(|&code| {
                    let payload = self.b.ins().band_imm_s(code, 0x3ff);
                    let bits = self.b.ins().bor_imm_s(payload, 0x7e00);
                    self.call_symbol("clift_half_to_f32", &[bits], types::F32)
                })
                .collect();
        }
        if function == F::Nan {
            // nan(uintn / ulongn): the argument is an integer, the result float or double.
            let elem = ret.element().unwrap_or(Scalar::Float);
            return self.float_function(id, &values, args, ret, elem);
        }
        if elem.is_float() {
            if let Some(v) = self.relational(function, &values, ret, elem)? {
                return Ok(v);
            }
            return self.float_function(id, &values, args, ret, elem);
        }
        self.integer_function(id, &values, args, ret, elem)
    }

    /// `get_global_id(d)` and the other work-item functions (6.12.1).
    fn work_item_function(&mut self, function: F, args: &[Expr]) -> Result<Lanes> {
        let field = match function {
            F::GetWorkDim => {
                let group = self.group();
                let d = self.b.ins().load(
                    types::I32,
                    MemFlagsData::trusted(),
                    group,
                    WorkGroup::OFFSET_WORK_DIM,
                );
                return Ok(vec![d]);
            }
            F::GetGlobalOffset => Some(WorkGroup::OFFSET_GLOBAL_OFFSET),
            F::GetGlobalSize => Some(WorkGroup::OFFSET_GLOBAL_SIZE),
            // get_enqueued_local_size is resolved to get_local_size by semantic analysis.
            F::GetLocalSize | F::GetEnqueuedLocalSize => Some(WorkGroup::OFFSET_LOCAL_SIZE),
            F::GetNumGroups => Some(WorkGroup::OFFSET_NUM_GROUPS),
            F::GetGroupId => Some(WorkGroup::OFFSET_GROUP_ID),
            F::GetLocalId | F::GetGlobalId => None,
            other => return unsupported(format!("work-item function '{}'", other.name())),
        };
        // Dimension 0 inside a kernel's row loop: the loop's own counter.
        let dim = constant_dimension(args);
        let dim0 = dim == Some(0);
        if let (true, Some(x), None) = (dim0, self.local_x, field) {
            let lid = self.b.use_var(x);
            if function == F::GetLocalId {
                return Ok(vec![lid]);
            }
            if let Some(gx) = self.global_x {
                return Ok(vec![self.b.use_var(gx)]);
            }
        }
        // Read once before a row's loop.
        if let Some(d) = dim
            && let Some(value) = self.row_constants.get(&(function, d))
        {
            return Ok(vec![*value]);
        }
        let d = self.expr(&args[0])?[0];
        // "Valid values of dimindx are 0 to get_work_dim() - 1"; beyond, ids are 0 and sizes
        // 1. The context pads unused dimensions that way, so only d > 2 needs a guard.
        let d64 = self.b.ins().uextend(types::I64, d);
        let in_range = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, d64, 3);
        let two = self.b.ins().iconst(types::I64, 2);
        let index = self.b.ins().umin(d64, two);
        let byte = self.b.ins().imul_imm_s(index, 8);
        // The work-group's fields are fixed for the call; the item's local ids are not.
        let read = |this: &mut Self, base: Value, offset: i32| {
            let flags = if base == this.item {
                MemFlagsData::trusted()
            } else {
                invariant()
            };
            let addr = this.b.ins().iadd(base, byte);
            this.b.ins().load(types::I64, flags, addr, offset)
        };
        let value = match (function, field) {
            (_, Some(offset)) => {
                let group = self.group();
                read(self, group, offset)
            }
            (F::GetLocalId, None) => read(self, self.item, item_context::LOCAL_ID),
            _ => {
                // global id = group id * local size + local id + global offset
                let group = self.group();
                let gid = read(self, group, WorkGroup::OFFSET_GROUP_ID);
                let size = read(self, group, WorkGroup::OFFSET_LOCAL_SIZE);
                let offset = read(self, group, WorkGroup::OFFSET_GLOBAL_OFFSET);
                let lid = read(self, self.item, item_context::LOCAL_ID);
                let base = self.b.ins().imul(gid, size);
                let base = self.b.ins().iadd(base, lid);
                self.b.ins().iadd(base, offset)
            }
        };
        let default = if matches!(
            function,
            F::GetGlobalSize | F::GetLocalSize | F::GetEnqueuedLocalSize | F::GetNumGroups
        ) {
            1
        } else {
            0
        };
        let default = self.b.ins().iconst(types::I64, default);
        Ok(vec![self.b.ins().select(in_range, value, default)])
    }

    /// isequal, isnan, signbit, ...: 1/0 for scalars, -1/0 masks for vectors.
    fn relational(
        &mut self,
        function: F,
        values: &[Lanes],
        ret: &Type,
        elem: Scalar,
    ) -> Result<Option<Lanes>> {
        let cc = match function {
            F::Isequal => Some(FloatCC::Equal),
            F::Isnotequal => Some(FloatCC::NotEqual),
            F::Isgreater => Some(FloatCC::GreaterThan),
            F::Isgreaterequal => Some(FloatCC::GreaterThanOrEqual),
            F::Isless => Some(FloatCC::LessThan),
            F::Islessequal => Some(FloatCC::LessThanOrEqual),
            F::Islessgreater => Some(FloatCC::OrderedNotEqual),
            F::Isordered => Some(FloatCC::Ordered),
            F::Isunordered => Some(FloatCC::Unordered),
            _ => None,
        };
        let unary = matches!(
            function,
            F::Isnan | F::Isinf | F::Isfinite | F::Isnormal | F::Signbit
        );
        if cc.is_none() && !unary {
            return Ok(None);
        }
        if let Some(cc) = cc
            && let Some(r) = self.packed_compare(cc, &values[0], &values[1], elem, ret)
        {
            return Ok(Some(r));
        }
        let (rt, _) =
            lane_types(ret).ok_or_else(|| super::CodegenError("relational result".into()))?;
        let vector = ret.is_vector();
        let ft = clif_type(elem);
        let mut out = Vec::new();
        #[allow(clippy::needless_range_loop, reason = "lane l of every argument")]
        for l in 0..values[0].len() {
            let x = values[0][l];
            let c = match cc {
                Some(cc) => self.b.ins().fcmp(cc, x, values[1][l]),
                None => {
                    let it = if ft == types::F64 {
                        types::I64
                    } else {
                        types::I32
                    };
                    let bits = self.b.ins().bitcast(it, MemFlagsData::new(), x);
                    let (exp_mask, mant_bits) = if it == types::I64 {
                        (0x7ffi64, 52)
                    } else {
                        (0xff, 23)
                    };
                    let abs = self.b.ins().fabs(x);
                    match function {
                        F::Isnan => self.b.ins().fcmp(FloatCC::Unordered, x, x),
                        F::Isinf => {
                            let inf = if it == types::I64 {
                                self.b.ins().f64const(f64::INFINITY)
                            } else {
                                self.b.ins().f32const(f32::INFINITY)
                            };
                            self.b.ins().fcmp(FloatCC::Equal, abs, inf)
                        }
                        F::Isfinite => {
                            let inf = if it == types::I64 {
                                self.b.ins().f64const(f64::INFINITY)
                            } else {
                                self.b.ins().f32const(f32::INFINITY)
                            };
                            self.b.ins().fcmp(FloatCC::LessThan, abs, inf)
                        }
                        F::Isnormal if elem == Scalar::Half => {
                            // Normal as a half: 2^-14 <= |x| < inf (every half denormal is
                            // a normal float).
                            let min = self.b.ins().f32const(6.103_515_6e-5);
                            let inf = self.b.ins().f32const(f32::INFINITY);
                            let big = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, abs, min);
                            let finite = self.b.ins().fcmp(FloatCC::LessThan, abs, inf);
                            self.b.ins().band(big, finite)
                        }
                        F::Isnormal => {
                            let e = self.b.ins().ushr_imm_s(bits, mant_bits);
                            let e = self.b.ins().band_imm_s(e, exp_mask);
                            let nonzero = self.b.ins().icmp_imm_s(IntCC::NotEqual, e, 0);
                            let not_max = self.b.ins().icmp_imm_s(IntCC::NotEqual, e, exp_mask);
                            self.b.ins().band(nonzero, not_max)
                        }
                        _ => self.b.ins().icmp_imm_s(IntCC::SignedLessThan, bits, 0),
                    }
                }
            };
            out.push(mask(&mut self.b, c, rt, vector));
        }
        Ok(Some(out))
    }

    fn select(&mut self, values: &[Lanes], cond_ty: &Type) -> Lanes {
        let vector = cond_ty.is_vector();
        (0..values[0].len())
            .map(|l| {
                let c = values[2][l];
                // Vectors test the most significant bit; scalars test nonzero (6.12.6).
                let take_b = if vector {
                    self.b.ins().icmp_imm_s(IntCC::SignedLessThan, c, 0)
                } else {
                    self.b.ins().icmp_imm_s(IntCC::NotEqual, c, 0)
                };
                self.b.ins().select(take_b, values[1][l], values[0][l])
            })
            .collect()
    }

    fn bitselect(&mut self, a: Value, b: Value, c: Value) -> Value {
        let ty = self.b.func.dfg.value_type(a);
        let int = |this: &mut Self, v: Value| {
            if ty.is_float() {
                this.b.ins().bitcast(ty.as_int(), MemFlagsData::new(), v)
            } else {
                v
            }
        };
        let (ai, bi, ci) = (int(self, a), int(self, b), int(self, c));
        let r = self.b.ins().bitselect(ci, bi, ai);
        if ty.is_float() {
            self.b.ins().bitcast(ty, MemFlagsData::new(), r)
        } else {
            r
        }
    }

    fn float_function(
        &mut self,
        id: BuiltinId,
        values: &[Lanes],
        args: &[Expr],
        ret: &Type,
        elem: Scalar,
    ) -> Result<Lanes> {
        // The widest argument: a scalar first argument (`step(float, floatn)`,
        // `smoothstep(float, float, floatn)`) repeats across the lanes.
        let lanes = values.iter().map(Vec::len).max().unwrap_or(0);
        let ft = clif_type(elem);
        let scalar_arg = |i: usize, l: usize| -> Value {
            if values[i].len() == 1 {
                values[i][0]
            } else {
                values[i][l]
            }
        };
        // fma of halves goes lane by lane to `clift_fma_f16` (one rounding to half).
        let half_fma = elem == Scalar::Half && id.function() == F::Fma;
        if !half_fma && let Some(r) = self.packed_builtin(id.function(), values, ret, elem) {
            return Ok(r);
        }
        if let Some(r) = self.four_lane_math(id.function(), values, elem)? {
            return Ok(r);
        }
        let mut out = Vec::with_capacity(lanes);
        let (function, name) = (id.function(), id.name());
        #[allow(clippy::needless_range_loop, reason = "lane l of every argument")]
        for l in 0..lanes {
            let x = scalar_arg(0, l);
            let v = match function {
                F::Sqrt | F::NativeSqrt | F::HalfSqrt => self.b.ins().sqrt(x),
                F::Fabs => self.b.ins().fabs(x),
                F::Floor => self.b.ins().floor(x),
                F::Ceil => self.b.ins().ceil(x),
                F::Trunc => self.b.ins().trunc(x),
                F::Rint => self.b.ins().nearest(x),
                F::Copysign => self.b.ins().fcopysign(x, values[1][l]),
                // fma of halves rounds once to half: float's fma rounded again would not.
                F::Fma if elem == Scalar::Half => {
                    let args = [x, scalar_arg(1, l), scalar_arg(2, l)];
                    self.call_symbol("clift_fma_f16", &args, types::F32)?
                }
                F::Fma => self.b.ins().fma(x, values[1][l], values[2][l]),
                // mad may be fused; with -cl-mad-enable it is (one rounding, and faster).
                F::Mad if self.mad_enable => self.b.ins().fma(x, values[1][l], values[2][l]),
                F::Mad => {
                    let p = self.b.ins().fmul(x, values[1][l]);
                    self.b.ins().fadd(p, values[2][l])
                }
                F::NativeDivide => self.b.ins().fdiv(x, values[1][l]),
                F::NativeRecip => {
                    let one = self.b.ins().f32const(1.0);
                    self.b.ins().fdiv(one, x)
                }
                // rsqrt (2 ulp, half_rsqrt 8192): 1 / sqrt(x) in double for a float is
                // within half an ulp after rounding; in double itself within 2 ulp. Inline,
                // not a call, which would spill every vector register of a loop around it.
                F::Rsqrt | F::HalfRsqrt if ft == types::F32 => {
                    let wide = self.b.ins().fpromote(types::F64, x);
                    let root = self.b.ins().sqrt(wide);
                    let one = self.b.ins().f64const(1.0);
                    let r = self.b.ins().fdiv(one, root);
                    self.b.ins().fdemote(types::F32, r)
                }
                F::Rsqrt if ft == types::F64 => {
                    let root = self.b.ins().sqrt(x);
                    let one = self.b.ins().f64const(1.0);
                    self.b.ins().fdiv(one, root)
                }
                F::NativeRsqrt => {
                    let one = self.b.ins().f32const(1.0);
                    let s = self.b.ins().sqrt(x);
                    self.b.ins().fdiv(one, s)
                }
                F::Min | F::Max => {
                    // common min/max: "returns y if x < y (max) ..."; NaN results undefined.
                    let y = scalar_arg(1, l);
                    let cc = if function == F::Max {
                        FloatCC::LessThan
                    } else {
                        FloatCC::GreaterThan
                    };
                    let c = self.b.ins().fcmp(cc, x, y);
                    self.b.ins().select(c, y, x)
                }
                F::Clamp => {
                    let (lo, hi) = (scalar_arg(1, l), scalar_arg(2, l));
                    let c = self.b.ins().fcmp(FloatCC::LessThan, x, lo);
                    let m = self.b.ins().select(c, lo, x);
                    let c = self.b.ins().fcmp(FloatCC::GreaterThan, m, hi);
                    self.b.ins().select(c, hi, m)
                }
                F::Mix => {
                    let (y, a) = (values[1][l], scalar_arg(2, l));
                    let d = self.b.ins().fsub(y, x);
                    let p = self.b.ins().fmul(d, a);
                    self.b.ins().fadd(x, p)
                }
                F::Step => {
                    // step(edge, x): 0 if x < edge else 1; edge may be the scalar.
                    let (edge, v) = (scalar_arg(0, l), values[1][l]);
                    let c = self.b.ins().fcmp(FloatCC::LessThan, v, edge);
                    let (zero, one) = self.float_pair(ft, 0.0, 1.0);
                    self.b.ins().select(c, zero, one)
                }
                F::Sign => {
                    // 1.0 if x > 0, -1.0 if x < 0, x itself for ±0.0, 0.0 for NaN.
                    let (zero, one) = self.float_pair(ft, 0.0, 1.0);
                    let minus_one = self.b.ins().fneg(one);
                    let positive = self.b.ins().fcmp(FloatCC::GreaterThan, x, zero);
                    let negative = self.b.ins().fcmp(FloatCC::LessThan, x, zero);
                    let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                    let v = self.b.ins().select(negative, minus_one, x);
                    let v = self.b.ins().select(positive, one, v);
                    self.b.ins().select(nan, zero, v)
                }
                F::Smoothstep => {
                    // t = clamp((x - edge0) / (edge1 - edge0), 0, 1); t * t * (3 - 2 * t).
                    let (e0, e1, v) = (scalar_arg(0, l), scalar_arg(1, l), values[2][l]);
                    let num = self.b.ins().fsub(v, e0);
                    let den = self.b.ins().fsub(e1, e0);
                    let t = self.b.ins().fdiv(num, den);
                    let (zero, one) = self.float_pair(ft, 0.0, 1.0);
                    let t = self.b.ins().fmax(t, zero);
                    let t = self.b.ins().fmin(t, one);
                    let (two, three) = self.float_pair(ft, 2.0, 3.0);
                    let twice = self.b.ins().fmul(two, t);
                    let poly = self.b.ins().fsub(three, twice);
                    let square = self.b.ins().fmul(t, t);
                    self.b.ins().fmul(square, poly)
                }
                F::Radians | F::Degrees => {
                    let k = if function == F::Radians {
                        std::f64::consts::PI / 180.0
                    } else {
                        180.0 / std::f64::consts::PI
                    };
                    let (k, _) = self.float_pair(ft, k, 0.0);
                    self.b.ins().fmul(x, k)
                }
                F::Dot
                | F::Length
                | F::Distance
                | F::Normalize
                | F::FastLength
                | F::FastDistance
                | F::FastNormalize
                | F::Cross => {
                    return self.geometric(function, values, ft);
                }
                // Math functions with a pointer output parameter (written lane by lane).
                F::Fract | F::Frexp | F::Modf | F::Sincos | F::Remquo | F::LgammaR => {
                    let ptr_index = values.len() - 1;
                    let (out_ty, out_space) = match &args[ptr_index].ty {
                        Type::Pointer(p) => (p.ty.element().unwrap_or(Scalar::Int), p.space),
                        _ => (Scalar::Int, crate::frontend::types::AddressSpace::Private),
                    };
                    let addr = self
                        .b
                        .ins()
                        .iadd_imm_s(values[ptr_index][0], (l as u64 * out_ty.size()) as i64);
                    // The library writes through it: checked here (a fault in the library
                    // would not be recovered).
                    self.same_object(values[ptr_index][0], addr);
                    let span = args[ptr_index].span;
                    self.check_access(addr, out_ty.size(), out_space, span, true)?;
                    let mut call_args: Vec<Value> = (0..ptr_index).map(|i| values[i][l]).collect();
                    call_args.push(addr);
                    // fract, modf and sincos of half store a half (16 bits).
                    let suffix = if elem == Scalar::Half && out_ty == Scalar::Half {
                        "f16"
                    } else {
                        float_suffix(elem)
                    };
                    self.call_symbol(&format!("clift_{name}_{suffix}"), &call_args, ft)?
                }
                // The library's function, `clift_<name>_<type>`.
                _ => {
                    let n = name;
                    // (The half_ and native_ functions take float only: `clift_<name>_f32`.)
                    let symbol = if elem == Scalar::Half && function == F::Nextafter {
                        // The neighbouring half, not the neighbouring float.
                        "clift_nextafter_f16".to_string()
                    } else {
                        format!("clift_{n}_{}", float_suffix(elem))
                    };
                    let call_args: Vec<Value> =
                        (0..values.len()).map(|i| scalar_arg(i, l)).collect();
                    let (rt, _) = lane_types(ret)
                        .ok_or_else(|| super::CodegenError(format!("result of {n}")))?;
                    self.call_symbol(&symbol, &call_args, rt)?
                }
            };
            out.push(v);
        }
        Ok(out)
    }

    /// A `float2`..`float16` math function that the library has in a four-lane form
    /// (`clift_v4_<name>_f32`: exp, log, sin, cos, pow and their bases): one call per group of
    /// four components instead of one per component. The four-lane forms give the scalar
    /// functions' bits, and run the four lanes' kernels side by side in SSE registers, which
    /// the scalar row's one-at-a-time calls cannot (the CTS's math kernels of every vector
    /// size but 1 run in this row: pow's four calls cost twice its one). A `float2` or
    /// `float3` fills the rest of its register with its first component.
    fn four_lane_math(
        &mut self,
        function: F,
        values: &[Lanes],
        elem: Scalar,
    ) -> Result<Option<Lanes>> {
        let Some(symbol) = super::simd::builtins::vector_symbol(function) else {
            return Ok(None);
        };
        let lanes = values.first().map_or(0, Vec::len);
        if elem != Scalar::Float || lanes < 2 || values.iter().any(|v| v.len() != lanes) {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(lanes);
        for group in (0..lanes).step_by(4) {
            let registers: Vec<Value> = values
                .iter()
                .map(|v| {
                    let mut r = self.b.ins().scalar_to_vector(types::F32X4, v[group]);
                    for k in 1..4u8 {
                        let lane = v.get(group + k as usize).copied().unwrap_or(v[group]);
                        r = self.b.ins().insertlane(r, lane, k);
                    }
                    r
                })
                .collect();
            let r = self.call_symbol(symbol, &registers, types::F32X4)?;
            for k in 0..(lanes - group).min(4) {
                out.push(self.b.ins().extractlane(r, k as u8));
            }
        }
        Ok(Some(out))
    }

    fn float_pair(&mut self, ft: ir::Type, a: f64, b: f64) -> (Value, Value) {
        if ft == types::F64 {
            (self.b.ins().f64const(a), self.b.ins().f64const(b))
        } else {
            (
                self.b.ins().f32const(a as f32),
                self.b.ins().f32const(b as f32),
            )
        }
    }

    fn integer_function(
        &mut self,
        id: BuiltinId,
        values: &[Lanes],
        args: &[Expr],
        ret: &Type,
        elem: Scalar,
    ) -> Result<Lanes> {
        if let Some(r) = self.packed_builtin(id.function(), values, ret, elem) {
            return Ok(r);
        }
        let lanes = values[0].len();
        let signed = elem.is_signed();
        let scalar_arg = |i: usize, l: usize| -> Value {
            if values[i].len() == 1 {
                values[i][0]
            } else {
                values[i][l]
            }
        };
        let mut out = Vec::with_capacity(lanes);
        #[allow(clippy::needless_range_loop, reason = "lane l of every argument")]
        for l in 0..lanes {
            let x = values[0][l];
            let v = match id.function() {
                F::Min => {
                    let y = scalar_arg(1, l);
                    if signed {
                        self.b.ins().smin(x, y)
                    } else {
                        self.b.ins().umin(x, y)
                    }
                }
                F::Max => {
                    let y = scalar_arg(1, l);
                    if signed {
                        self.b.ins().smax(x, y)
                    } else {
                        self.b.ins().umax(x, y)
                    }
                }
                F::Clamp => {
                    let (lo, hi) = (scalar_arg(1, l), scalar_arg(2, l));
                    let m = if signed {
                        self.b.ins().smax(x, lo)
                    } else {
                        self.b.ins().umax(x, lo)
                    };
                    if signed {
                        self.b.ins().smin(m, hi)
                    } else {
                        self.b.ins().umin(m, hi)
                    }
                }
                F::Mul24 => self.b.ins().imul(x, values[1][l]),
                F::Mad24 => {
                    let p = self.b.ins().imul(x, values[1][l]);
                    self.b.ins().iadd(p, values[2][l])
                }
                F::Upsample => {
                    // (hi << bits) | lo, in the type twice as wide.
                    let (rt, _) =
                        lane_types(ret).ok_or_else(|| super::CodegenError("upsample".into()))?;
                    let hi = if signed {
                        self.b.ins().sextend(rt, x)
                    } else {
                        self.b.ins().uextend(rt, x)
                    };
                    let lo = self.b.ins().uextend(rt, values[1][l]);
                    let shifted = self.b.ins().ishl_imm_s(hi, i64::from(elem.bits()));
                    self.b.ins().bor(shifted, lo)
                }
                F::Clz => self.b.ins().clz(x),
                F::Ctz => self.b.ins().ctz(x),
                F::Popcount => self.b.ins().popcnt(x),
                F::Rotate => self.b.ins().rotl(x, values[1][l]),
                // The library's function, `clift_<name>_<type>`.
                _ => {
                    let n = id.name();
                    let (rt, _) = lane_types(ret)
                        .ok_or_else(|| super::CodegenError(format!("result of {n}")))?;
                    let call_args: Vec<Value> =
                        (0..values.len()).map(|i| scalar_arg(i, l)).collect();
                    let _ = args;
                    self.call_symbol(&format!("clift_{n}_{}", int_suffix(elem)), &call_args, rt)?
                }
            };
            out.push(v);
        }
        Ok(out)
    }

    fn atomic(&mut self, function: F, values: &[Lanes], args: &[Expr]) -> Result<Lanes> {
        let Some(op) = atomic_op(function) else {
            return unsupported(format!("atomic operation '{}'", function.name()));
        };
        let Type::Pointer(pointee) = &args[0].ty else {
            return unsupported("atomic on a non-pointer");
        };
        let s = pointee.ty.scalar().unwrap_or(Scalar::Int);
        let t = clif_type(s);
        let it = if t.is_float() { t.as_int() } else { t };
        let p = values[0][0];
        self.check_access(p, u64::from(it.bytes()), pointee.space, args[0].span, true)?;
        let flags = MemFlagsData::new();
        let operand = |this: &mut Self, v: Value| {
            if t.is_float() {
                this.b.ins().bitcast(it, MemFlagsData::new(), v)
            } else {
                v
            }
        };
        let signed = s.is_signed();
        let result = match op {
            Atomic::Cmpxchg => {
                let (e, n) = (values[1][0], values[2][0]);
                self.b.ins().atomic_cas(flags, p, e, n)
            }
            Atomic::Inc | Atomic::Dec => {
                let one = self.b.ins().iconst(it, 1);
                let rmw = if op == Atomic::Inc {
                    AtomicRmwOp::Add
                } else {
                    AtomicRmwOp::Sub
                };
                self.b.ins().atomic_rmw(it, flags, rmw, p, one)
            }
            Atomic::Rmw(rmw) => {
                let rmw = match rmw {
                    AtomicRmwOp::Umin if signed => AtomicRmwOp::Smin,
                    AtomicRmwOp::Umax if signed => AtomicRmwOp::Smax,
                    other => other,
                };
                let v = operand(self, values[1][0]);
                self.b.ins().atomic_rmw(it, flags, rmw, p, v)
            }
        };
        Ok(vec![if t.is_float() {
            self.b.ins().bitcast(t, MemFlagsData::new(), result)
        } else {
            result
        }])
    }

    /// vloadn / vstoren and the half variants (6.12.7).
    fn vector_memory(
        &mut self,
        id: BuiltinId,
        values: &[Lanes],
        args: &[Expr],
        ret: &Type,
    ) -> Result<Lanes> {
        let flags = MemFlagsData::new();
        let function = id.function();
        let store = matches!(function, F::Vstore | F::VstoreHalf | F::VstoreaHalf);
        let aligned = matches!(function, F::VloadaHalf | F::VstoreaHalf);
        let converts = !matches!(function, F::Vload | F::Vstore);
        let (ptr_index, offset_index) = if store { (2, 1) } else { (1, 0) };
        let Type::Pointer(pointee) = &args[ptr_index].ty else {
            return unsupported(id.name().to_string());
        };
        let elem = pointee.ty.scalar().unwrap_or(Scalar::Int);
        // vloadn/vstoren of half values (cl_khr_fp16) move 16-bit halves like vload_halfn,
        // but bit for bit (a signalling NaN stays one); vload_half converts (IEEE 754).
        let half = converts || elem == Scalar::Half;
        let (to_f32, from_f32) = if converts {
            ("clift_half_to_f32", None)
        } else {
            ("clift_half_bits_to_f32", Some("clift_f32_to_half_bits"))
        };
        let lanes = if store {
            values[0].len()
        } else {
            ret.lanes() as usize
        };
        // The n of the name (vload3 moves 3 elements; vloada_half3 steps by 4).
        let step = if aligned && lanes == 3 { 4 } else { lanes };
        let offset = self
            .b
            .ins()
            .imul_imm_s(values[offset_index][0], (step as u64 * elem.size()) as i64);
        let base = self.b.ins().iadd(values[ptr_index][0], offset);
        self.same_object(values[ptr_index][0], base);
        let bytes = lanes as u64 * if half { 2 } else { elem.size() };
        let span = args[ptr_index].span;
        self.check_access(base, bytes, pointee.space, span, store)?;
        let size = elem.size() as i32;
        if !store {
            if half {
                return (0..lanes)
                    .map(|l| {
                        let bits = self.b.ins().load(types::I16, flags, base, l as i32 * 2);
                        self.call_symbol(to_f32, &[bits], types::F32)
                    })
                    .collect();
            }
            if let Some(s) = self.register_shape(ret) {
                return Ok(self.load_registers(base, &s, flags));
            }
            let t = clif_type(elem);
            return Ok((0..lanes)
                .map(|l| self.b.ins().load(t, flags, base, l as i32 * size))
                .collect());
        }
        let rounding = match id.builtin().rounding {
            Rounding::Rtz => "_rtz",
            Rounding::Rtp => "_rtp",
            Rounding::Rtn => "_rtn",
            Rounding::Default | Rounding::Rte => "_rte",
        };
        let from = args[0].ty.element().unwrap_or(Scalar::Float);
        if let (false, Some(s)) = (half, self.register_shape(&args[0].ty)) {
            self.store_registers(base, &values[0], &s, flags);
            return Ok(Vec::new());
        }
        for (l, &v) in values[0].iter().enumerate().take(lanes) {
            if half {
                let symbol = match from_f32 {
                    Some(exact) => exact.to_string(),
                    None => format!(
                        "clift_{}_to_half{rounding}",
                        if from == Scalar::Double { "f64" } else { "f32" }
                    ),
                };
                let bits = self.call_symbol(&symbol, &[v], types::I16)?;
                self.b.ins().store(flags, bits, base, l as i32 * 2);
            } else {
                self.b.ins().store(flags, v, base, l as i32 * size);
            }
        }
        Ok(Vec::new())
    }

    /// `async_work_group_copy` and `async_work_group_strided_copy` (6.12.10): "perform an
    /// async copy of num_gentypes gentype elements ... The async copy is performed by all
    /// work-items in a work-group and this built-in function must therefore be encountered
    /// by all work-items in a work-group executing the kernel with the same argument
    /// values". The copy is done once per work-group, by its last work-item (the highest
    /// local id in every dimension): every work-item runs the same call, so any one of them
    /// may do the group's copy, and doing it in each would copy the data local-size times.
    /// The last one comes after the others in the work-item loops, so the copy also sees
    /// what the other work-items wrote before the call. Readers of the destination must call
    /// `wait_group_events` first, which is a work-group synchronization point here: the
    /// copy is complete before any work-item passes it.
    fn async_copy(&mut self, function: F, values: &[Lanes], args: &[Expr]) -> Result<Lanes> {
        let Type::Pointer(pointee) = &args[0].ty else {
            return unsupported("async copy");
        };
        let elem_size = pointee.ty.size() as i64;
        let (dst, src, count) = (values[0][0], values[1][0], values[2][0]);
        for (pointer, arg) in [(dst, &args[0]), (src, &args[1])] {
            if let Type::Pointer(p) = &arg.ty {
                self.find_object(pointer, p.space);
            }
        }
        let stride = if function == F::AsyncWorkGroupStridedCopy {
            Some(values[3][0])
        } else {
            None
        };
        let dst_is_local = matches!(&args[0].ty, Type::Pointer(p) if p.space == crate::frontend::types::AddressSpace::Local);
        let last = self.is_last_work_item(args[0].span)?;
        let (copy, done) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(last, copy, &[], done, &[]);
        self.b.switch_to_block(copy);
        let i = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(i, zero);
        let (head, body) = (self.b.create_block(), self.b.create_block());
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let iv = self.b.use_var(i);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, iv, count);
        self.b.ins().brif(more, body, &[], done, &[]);
        self.b.switch_to_block(body);
        let iv = self.b.use_var(i);
        let linear = self.b.ins().imul_imm_s(iv, elem_size);
        let strided = match stride {
            Some(s) => {
                let k = self.b.ins().imul(iv, s);
                self.b.ins().imul_imm_s(k, elem_size)
            }
            None => linear,
        };
        let (src_off, dst_off) = if dst_is_local {
            (strided, linear)
        } else {
            (linear, strided)
        };
        let s = self.b.ins().iadd(src, src_off);
        let d = self.b.ins().iadd(dst, dst_off);
        if self.safe() {
            // Each element of both sides, in its own object.
            let space = |e: &Expr| match &e.ty {
                Type::Pointer(p) => p.space,
                _ => crate::frontend::types::AddressSpace::Private,
            };
            self.same_object(src, s);
            self.same_object(dst, d);
            self.check_access(s, elem_size as u64, space(&args[1]), args[1].span, false)?;
            self.check_access(d, elem_size as u64, space(&args[0]), args[0].span, true)?;
        }
        let config = self.state.isa.frontend_config();
        self.b.emit_small_memory_copy(
            config,
            d,
            s,
            elem_size as u64,
            1,
            1,
            true,
            MemFlagsData::new(),
        );
        let next = self.b.ins().iadd_imm_s(iv, 1);
        self.b.def_var(i, next);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(done);
        Ok(vec![self.b.ins().iconst(types::I64, 0)])
    }

    /// Whether the current work-item is the last of its work-group: its local id is
    /// `get_local_size(d) - 1` in each dimension (unused dimensions have size 1 and id 0).
    fn is_last_work_item(&mut self, span: crate::frontend::source::Span) -> Result<Value> {
        let mut all = None;
        for d in 0..3 {
            let dim = [Expr::int_const(d, Scalar::UInt, span)];
            let id = self.work_item_function(F::GetLocalId, &dim)?;
            let size = self.work_item_function(F::GetLocalSize, &dim)?;
            let last = self.b.ins().iadd_imm_s(size[0], -1);
            let is_last = self.b.ins().icmp(IntCC::Equal, id[0], last);
            all = Some(match all {
                None => is_last,
                Some(a) => self.b.ins().band(a, is_last),
            });
        }
        Ok(all.expect("three dimensions"))
    }

    /// `printf(format, ...)`: the arguments go to the library as `PrintfArg` records (kind,
    /// element size, lanes, each lane widened to 64 bits) with the launch's buffer.
    fn printf(&mut self, values: &[Lanes], args: &[Expr]) -> Result<Lanes> {
        const RECORD: u32 = 144;
        let count = args.len() - 1;
        let size = (count.max(1) as u32) * RECORD;
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            size,
            4,
        ));
        let base = self.b.ins().stack_addr(types::I64, slot, 0);
        let flags = MemFlagsData::trusted();
        for (i, (arg, lanes)) in args[1..].iter().zip(&values[1..]).enumerate() {
            let record = (i as u32 * RECORD) as i32;
            let (kind, elem_size) = match arg.ty.element() {
                Some(s) if s.is_float() => (if s == Scalar::Double { 3 } else { 2 }, s.size()),
                Some(s) => (if s.is_signed() { 0 } else { 1 }, s.size()),
                None => (4, 8),
            };
            for (offset, v) in [
                (0, kind as i64),
                (4, elem_size as i64),
                (8, lanes.len() as i64),
                (12, 0),
            ] {
                let c = self.b.ins().iconst(types::I32, v);
                self.b.ins().store(flags, c, base, record + offset);
            }
            for (l, &lane) in lanes.iter().enumerate() {
                let t = self.b.func.dfg.value_type(lane);
                let wide = match (kind, t) {
                    (2, _) => {
                        let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), lane);
                        self.b.ins().uextend(types::I64, bits)
                    }
                    (3, _) => self.b.ins().bitcast(types::I64, MemFlagsData::new(), lane),
                    (_, t) if t == types::I64 => lane,
                    (0, _) => self.b.ins().sextend(types::I64, lane),
                    _ => self.b.ins().uextend(types::I64, lane),
                };
                self.b
                    .ins()
                    .store(flags, wide, base, record + 16 + 8 * l as i32);
            }
        }
        let group = self.group();
        let buffer = self.b.ins().load(
            types::I64,
            super::func::invariant(),
            group,
            WorkGroup::OFFSET_PRINTF_BUFFER,
        );
        let count = self.b.ins().iconst(types::I32, count as i64);
        let result = self.call_symbol(
            "clift_printf",
            &[buffer, values[0][0], base, count],
            types::I32,
        )?;
        Ok(vec![result])
    }

    /// shuffle / shuffle2: lanes chosen at run time, through a stack copy of the inputs.
    fn shuffle(&mut self, values: &[Lanes], args: &[Expr], ret: &Type) -> Result<Lanes> {
        let two = values.len() == 3;
        let (t, n_in) =
            lane_types(&args[0].ty).ok_or_else(|| super::CodegenError("shuffle".into()))?;
        let total = if two { 2 * n_in } else { n_in };
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            (total as u32) * t.bytes(),
            4,
        ));
        let base = self.b.ins().stack_addr(types::I64, slot, 0);
        let inputs: Vec<Value> = if two {
            values[0].iter().chain(&values[1]).copied().collect()
        } else {
            values[0].clone()
        };
        for (i, v) in inputs.iter().enumerate() {
            self.b.ins().store(
                MemFlagsData::trusted(),
                *v,
                base,
                (i as u32 * t.bytes()) as i32,
            );
        }
        let mask_lanes = &values[values.len() - 1];
        let _ = ret;
        Ok(mask_lanes
            .iter()
            .map(|&m| {
                // "Only the ilogb(2m-1) least significant bits of each mask element are used."
                let m64 = uextend_to(&mut self.b, types::I64, m);
                let index = self.b.ins().band_imm_s(m64, total as i64 - 1);
                let offset = self.b.ins().imul_imm_s(index, i64::from(t.bytes()));
                let addr = self.b.ins().iadd(base, offset);
                self.b.ins().load(t, MemFlagsData::trusted(), addr, 0)
            })
            .collect())
    }
}

/// What an atomic function does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Atomic {
    Cmpxchg,
    Inc,
    Dec,
    /// A read-modify-write with the operand (`Umin`/`Umax` stand for min/max of either
    /// signedness: the pointee's type decides).
    Rmw(AtomicRmwOp),
}

/// The operation of `atomic_*` and `atom_*` (6.12.11 and the 1.0 extensions).
fn atomic_op(function: F) -> Option<Atomic> {
    Some(match function {
        F::AtomicCmpxchg | F::AtomCmpxchg => Atomic::Cmpxchg,
        F::AtomicInc | F::AtomInc => Atomic::Inc,
        F::AtomicDec | F::AtomDec => Atomic::Dec,
        F::AtomicAdd | F::AtomAdd => Atomic::Rmw(AtomicRmwOp::Add),
        F::AtomicSub | F::AtomSub => Atomic::Rmw(AtomicRmwOp::Sub),
        F::AtomicXchg | F::AtomXchg => Atomic::Rmw(AtomicRmwOp::Xchg),
        F::AtomicAnd | F::AtomAnd => Atomic::Rmw(AtomicRmwOp::And),
        F::AtomicOr | F::AtomOr => Atomic::Rmw(AtomicRmwOp::Or),
        F::AtomicXor | F::AtomXor => Atomic::Rmw(AtomicRmwOp::Xor),
        F::AtomicMin | F::AtomMin => Atomic::Rmw(AtomicRmwOp::Umin),
        F::AtomicMax | F::AtomMax => Atomic::Rmw(AtomicRmwOp::Umax),
        _ => return None,
    })
}
