//! Builtin calls: overload resolution against the generated signature table of
//! `clift_builtins`, and the builtins that follow rules rather than a list —
//! `convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]` (6.2.3), `as_<type>` (6.2.4.2), `shuffle`,
//! `shuffle2` (6.12.12) and `printf` (6.12.13).

use std::sync::Arc;

use clift_builtins::signatures::{self, BuiltinId, Signature};
use clift_builtins::types::{BType, Space};

use super::super::ast;
use super::super::source::Span;
use super::super::tir::{
    AccessQualifier, Constant, ConvertKind, Expr, ExprKind, FuncId, PlaceKind, Rounding,
};
use super::super::types::{AddressSpace, QualType, Qualifiers, Scalar, Type};
use super::Analyzer;

/// Whether `name` is a builtin function (user code may not redefine it): a name of the
/// signature table or one it resolves by rule (`shuffle`, `shuffle2`, `printf`: each has a
/// `BuiltinId`), or a conversion the rules name. A name that only starts like one
/// (`convert_float8_to_int8_rtz`, `as_bytes`) is the user's to take, as in clang, whose
/// builtins are the declarations of opencl-c.h.
pub(super) fn is_builtin(name: &str) -> bool {
    BuiltinId::lookup(name).is_some()
        || name
            .strip_prefix("convert_")
            .is_some_and(|r| convert_target(r).is_some())
        || name
            .strip_prefix("as_")
            .is_some_and(|r| as_target(r).is_some())
}

/// What `convert_<rest>` converts to: `<type>[_sat][_rte|_rtz|_rtp|_rtn]` (6.2.3), with a
/// type of a number (no `bool`).
fn convert_target(rest: &str) -> Option<(Type, bool, Rounding)> {
    let mut parts = rest.split('_');
    let type_name = parts.next().unwrap_or("");
    let mut saturate = false;
    let mut rounding = Rounding::Default;
    for (i, p) in parts.enumerate() {
        match p {
            "sat" if i == 0 => saturate = true,
            "rte" if rounding == Rounding::Default => rounding = Rounding::Rte,
            "rtz" if rounding == Rounding::Default => rounding = Rounding::Rtz,
            "rtp" if rounding == Rounding::Default => rounding = Rounding::Rtp,
            "rtn" if rounding == Rounding::Default => rounding = Rounding::Rtn,
            _ => return None,
        }
    }
    let target = as_target(type_name)?;
    Some((target, saturate, rounding))
}

/// The type `as_<name>` (and `convert_<name>`) names: a scalar or vector number type.
fn as_target(name: &str) -> Option<Type> {
    Type::vector_from_name(name)
        .or_else(|| Scalar::from_name(name).map(Type::Scalar))
        .filter(|t| t.element() != Some(Scalar::Bool))
}

/// The name the typed tree calls a builtin by: one that is another under a second name
/// becomes that one, so that no later pass needs to know the alias. OpenCL C 2.0's
/// `get_enqueued_local_size` is `get_local_size` where every work-group is uniform, as in
/// 1.2.
fn canonical_name(name: &str) -> &str {
    match name {
        "get_enqueued_local_size" => "get_local_size",
        _ => name,
    }
}

/// The id the typed tree calls a builtin by (every name that resolves has one).
fn builtin_id(name: &str) -> Option<BuiltinId> {
    BuiltinId::lookup(canonical_name(name))
}

/// The type a table type stands for.
fn from_btype(t: &BType) -> Type {
    match t {
        BType::Void => Type::Void,
        BType::Scalar(s) => Type::Scalar(*s),
        BType::Vector(s, n) => Type::Vector(*s, *n),
        BType::Pointer {
            pointee,
            space,
            is_const,
            is_volatile,
        } => Type::Pointer(Box::new(QualType {
            ty: from_btype(pointee),
            quals: Qualifiers {
                is_const: *is_const,
                is_volatile: *is_volatile,
                is_restrict: false,
            },
            space: match space {
                Space::Private => AddressSpace::Private,
                Space::Global => AddressSpace::Global,
                Space::Local => AddressSpace::Local,
                Space::Constant => AddressSpace::Constant,
            },
        })),
        BType::Event => Type::Event,
        BType::Sampler => Type::Sampler,
        BType::Image(k) => Type::Image(*k),
    }
}

/// The cost of repeating a scalar argument into a vector parameter of its element type
/// (clang's "vector splat" conversion in OpenCL mode, which lets `rotate(uint4, uint)` call
/// `rotate(uint4, uint4)`). It is ranked below every exact match, promotion and arithmetic
/// conversion: larger than the costs of the other arguments of any builtin together, so an
/// overload that needs no splat always wins over one that does.
const SPLAT_COST: u32 = 16;

/// The cost of passing a pointer to integers where the parameter points to integers of the
/// other signedness (`vstore4(int4, 0, (global uint *)p)`): C calls the pointers
/// incompatible, and clang accepts the call with a warning (`-Wpointer-sign`), ranking it
/// below every other conversion but a splat.
const POINTER_SIGN_COST: u32 = 8;

/// Whether `a` and `b` are integer types (or vectors of them, with as many lanes) of one
/// size and different signedness.
fn differ_in_sign_only(a: &Type, b: &Type) -> bool {
    match (a.element(), b.element()) {
        (Some(x), Some(y)) => {
            x.is_integer()
                && y.is_integer()
                && x.size() == y.size()
                && x.is_signed() != y.is_signed()
                && a.lanes() == b.lanes()
                && a.is_vector() == b.is_vector()
        }
        _ => false,
    }
}

/// How good a match an argument of type `arg` is for a parameter of type `param`: 0 exact,
/// 1 promotion or added qualifiers, 2 arithmetic conversion (C++'s ranking, which clang
/// applies to OpenCL's overloaded builtins), [`SPLAT_COST`] plus the element's cost for a
/// scalar repeated into a vector; `None` if it does not convert.
fn match_cost(arg: &Type, param: &Type) -> Option<u32> {
    if arg == param {
        return Some(0);
    }
    match (arg, param) {
        (Type::Pointer(a), Type::Pointer(p)) => {
            let adds_only = (!a.quals.is_const || p.quals.is_const)
                && (!a.quals.is_volatile || p.quals.is_volatile);
            if a.space != p.space || !adds_only {
                return None;
            }
            if a.ty == p.ty {
                Some(1)
            } else {
                differ_in_sign_only(&a.ty, &p.ty).then_some(POINTER_SIGN_COST)
            }
        }
        (a, Type::Vector(elem, _)) if !a.is_vector() && a.scalar().is_some() => {
            Some(SPLAT_COST + match_cost(a, &Type::Scalar(*elem))?)
        }
        (a, p) if !a.is_vector() && !p.is_vector() => {
            let (a, p) = (a.scalar()?, p.scalar()?);
            let promotion = (a == Scalar::Float && p == Scalar::Double)
                || (a.is_integer() && a.size() < 4 && p == Scalar::Int);
            Some(if promotion { 1 } else { 2 })
        }
        _ => None,
    }
}

/// How many of the tied overloads an ambiguity error lists (`cross(1.0f, 2.0f)` ties two,
/// a call that splats into every vector width may tie many).
const MAX_CANDIDATES_SHOWN: usize = 4;

/// An overload as the diagnostics show it: `rotate(uint4, uint4)`.
fn signature_text(name: &str, sig: &Signature) -> String {
    let params = sig
        .params
        .iter()
        .map(|p| from_btype(p).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    format!("{name}({params})")
}

/// Whether `value` is an integer constant 0, which may stand for an `event_t`: 6.12.10,
/// "event ... should be zero" for an async copy whose event is not shared.
fn is_zero_event(value: &Expr) -> bool {
    matches!(&value.kind, ExprKind::Const(Constant::Int(lanes)) if lanes == &[0])
        && value.ty.scalar().is_some_and(|s| s.is_integer())
}

/// The value of an integer constant expression that stands for a `sampler_t`: OpenCL C
/// writes samplers as or-ed `CLK_*` constants (6.12.14.1), directly as the argument of an
/// image read or through a `const sampler_t` variable.
pub(super) fn sampler_constant(value: &Expr) -> Option<u64> {
    if !value.ty.scalar().is_some_and(|s| s.is_integer()) || value.ty.is_vector() {
        return None;
    }
    match super::constant::fold(value)? {
        Constant::Int(lanes) if lanes.len() == 1 => Some(lanes[0]),
        _ => None,
    }
}

/// [`match_cost`] of an argument expression: also takes the constant 0 as an `event_t`
/// and an integer constant as a `sampler_t`.
fn argument_cost(value: &Expr, param: &Type) -> Option<u32> {
    if *param == Type::Event && is_zero_event(value) {
        return Some(2);
    }
    if *param == Type::Sampler && sampler_constant(value).is_some() {
        return Some(2);
    }
    match_cost(&value.ty, param)
}

impl Analyzer<'_> {
    /// A call of a builtin (or of an unknown name, which is an error).
    pub(super) fn builtin_call(
        &mut self,
        name: &Arc<str>,
        name_span: Span,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let values = args.iter().map(|a| self.expr(a)).collect::<Vec<_>>();
        let values = values.into_iter().collect::<Option<Vec<_>>>()?;
        if let Some(rest) = name.strip_prefix("convert_") {
            return self.convert_builtin(name, rest, values, span);
        }
        if let Some(rest) = name.strip_prefix("as_") {
            return self.as_builtin(name, rest, values, span);
        }
        match &**name {
            "shuffle" | "shuffle2" => return self.shuffle(name, values, span),
            "printf" => return self.printf(values, span),
            // What `INFINITY`, `HUGE_VALF` and `NAN` expand to (preprocess/predefined.rs).
            "__builtin_inff" | "__builtin_nanf" => {
                let (arity, value) = if &**name == "__builtin_inff" {
                    (0, f64::INFINITY)
                } else {
                    (1, f64::NAN)
                };
                if values.len() != arity {
                    self.error(
                        span,
                        format!("'{name}' takes {arity} argument(s), {} given", values.len()),
                    );
                    return None;
                }
                return Some(Expr {
                    kind: ExprKind::Const(Constant::Float(vec![value])),
                    ty: Type::Scalar(Scalar::Float),
                    span,
                });
            }
            _ => {}
        }
        let overloads = signatures::overloads(name);
        let values = match self.program_overload(name, values, span) {
            Ok(call) => return call,
            Err(values) => values,
        };
        if overloads.is_empty() {
            self.error(
                name_span,
                format!("implicit declaration of function '{name}' is invalid in OpenCL"),
            );
            return None;
        }
        let enabled = |s: &Signature| {
            (!s.requires.fp64 || self.extensions.fp64)
                && (!s.requires.fp16 || self.extensions.fp16)
                // clang's opencl-c.h enables cl_khr_int64_base/extended_atomics itself
                // around its 64-bit atom_* declarations, so where the device has them they
                // need no pragma of the program's.
                && (!s.requires.int64_atomics || self.options.int64_atomics_supported)
        };
        let mut best: Vec<(&Signature, u32)> = Vec::new();
        for sig in overloads
            .iter()
            .filter(|s| enabled(s) && s.params.len() == values.len())
        {
            let cost: Option<u32> = sig
                .params
                .iter()
                .zip(&values)
                .map(|(p, v)| argument_cost(v, &from_btype(p)))
                .sum();
            let Some(cost) = cost else { continue };
            match best.first() {
                Some(&(_, c)) if cost > c => {}
                Some(&(_, c)) if cost == c => best.push((sig, cost)),
                _ => best = vec![(sig, cost)],
            }
        }
        let arg_types = values
            .iter()
            .map(|v| v.ty.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        match best.as_slice() {
            [] => {
                self.error(
                    span,
                    format!("no matching function for call to '{name}({arg_types})'"),
                );
                None
            }
            [(sig, _)] => {
                let sig = (*sig).clone();
                let mut converted = Vec::with_capacity(values.len());
                for (v, p) in values.into_iter().zip(&sig.params) {
                    let p = from_btype(p);
                    if let (Type::Pointer(a), Type::Pointer(q)) = (&v.ty, &p)
                        && differ_in_sign_only(&a.ty, &q.ty)
                    {
                        self.warning(
                            v.span,
                            format!(
                                "passing '{}' to parameter of type '{p}' converts between \
                                 pointers to integer types with different sign",
                                v.ty
                            ),
                        );
                    }
                    converted.push(self.argument(v, &p));
                }
                self.check_image_access(name, &converted, span)?;
                Some(Expr {
                    kind: ExprKind::Builtin {
                        id: builtin_id(name)?,
                        args: converted,
                    },
                    ty: from_btype(&sig.ret),
                    span,
                })
            }
            candidates => {
                let shown = candidates
                    .iter()
                    .take(MAX_CANDIDATES_SHOWN)
                    .map(|(sig, _)| signature_text(name, sig))
                    .collect::<Vec<_>>()
                    .join(", ");
                let more = match candidates.len().saturating_sub(MAX_CANDIDATES_SHOWN) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                self.error(
                    span,
                    format!(
                        "call to '{name}({arg_types})' is ambiguous: candidates are {shown}{more}"
                    ),
                );
                None
            }
        }
    }

    /// A call of a builtin's name that one of the program's own overloads of it
    /// (`__attribute__((overloadable))`) matches at least as well as every builtin
    /// overload: the call of that function (`None` after an error). Otherwise the
    /// arguments back, for the builtin's resolution. A program's overload with a builtin's
    /// exact parameter types is the definition of that declaration, as in clang, so it wins
    /// a tie.
    fn program_overload(
        &mut self,
        name: &Arc<str>,
        values: Vec<Expr>,
        span: Span,
    ) -> Result<Option<Expr>, Vec<Expr>> {
        let Some(ids) = self.builtin_overloads.get(name) else {
            return Err(values);
        };
        let cost_of = |params: &[Type]| -> Option<u32> {
            if params.len() != values.len() {
                return None;
            }
            params
                .iter()
                .zip(&values)
                .map(|(p, v)| argument_cost(v, p))
                .sum()
        };
        let mut best: Vec<(FuncId, u32)> = Vec::new();
        for &id in ids {
            let f = &self.program.functions[id.0 as usize];
            let params: Vec<Type> = f.locals[..f.params as usize]
                .iter()
                .map(|l| l.ty.ty.clone())
                .collect();
            let Some(cost) = cost_of(&params) else {
                continue;
            };
            match best.first() {
                Some(&(_, c)) if cost > c => {}
                Some(&(_, c)) if cost == c => best.push((id, cost)),
                _ => best = vec![(id, cost)],
            }
        }
        let Some(&(id, cost)) = best.first() else {
            return Err(values);
        };
        let builtin_best = signatures::overloads(name)
            .iter()
            .filter_map(|s| {
                let params: Vec<Type> = s.params.iter().map(from_btype).collect();
                cost_of(&params)
            })
            .min();
        if builtin_best.is_some_and(|b| b < cost) {
            return Err(values);
        }
        if best.len() > 1 {
            let arg_types = values
                .iter()
                .map(|v| v.ty.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            self.error(span, format!("call to '{name}({arg_types})' is ambiguous"));
            return Ok(None);
        }
        let f = &self.program.functions[id.0 as usize];
        let params: Vec<QualType> = f.locals[..f.params as usize]
            .iter()
            .map(|l| l.ty.clone())
            .collect();
        let ret = f.ret.clone();
        let mut converted = Vec::with_capacity(values.len());
        for (v, p) in values.into_iter().zip(&params) {
            let s = v.span;
            match self.assignment_conversion(v, &p.ty, s) {
                Some(v) => converted.push(v),
                None => return Ok(None),
            }
        }
        let state = self.func();
        if !state.callees.contains(&id) {
            state.callees.push(id);
        }
        Ok(Some(Expr {
            kind: ExprKind::Call {
                func: id,
                args: converted,
            },
            ty: ret,
            span,
        }))
    }

    /// "read_image* ... behavior is undefined for write_only images" and the mirror rule
    /// (6.12.14): clang rejects both, and so does clift, naming the qualifier.
    fn check_image_access(&mut self, name: &str, args: &[Expr], span: Span) -> Option<()> {
        let wants = if name.starts_with("read_image") {
            AccessQualifier::ReadOnly
        } else if name.starts_with("write_image") {
            AccessQualifier::WriteOnly
        } else {
            return Some(());
        };
        let ExprKind::Load(place) = &args.first()?.kind else {
            return Some(());
        };
        let PlaceKind::Local(local) = place.kind else {
            return Some(());
        };
        let access = self.current.as_ref()?.image_access.get(&local).copied();
        match access {
            Some(a) if a != wants => {
                let (has, needs) = match wants {
                    AccessQualifier::ReadOnly => ("write_only", "read"),
                    _ => ("read_only", "write"),
                };
                self.error(
                    span,
                    format!("'{name}' cannot {needs} the {has} image '{}'", args[0].ty),
                );
                None
            }
            _ => Some(()),
        }
    }

    /// An argument converted to the chosen overload's parameter type.
    fn argument(&mut self, value: Expr, param: &Type) -> Expr {
        if value.ty == *param {
            return value;
        }
        let span = value.span;
        if *param == Type::Sampler
            && let Some(bits) = sampler_constant(&value)
        {
            return Expr {
                kind: ExprKind::Const(Constant::Int(vec![bits])),
                ty: Type::Sampler,
                span,
            };
        }
        if *param == Type::Event && is_zero_event(&value) {
            return Expr {
                kind: ExprKind::Const(Constant::Int(vec![0])),
                ty: Type::Event,
                span,
            };
        }
        match param {
            Type::Pointer(_) => Expr {
                kind: ExprKind::Convert {
                    kind: ConvertKind::PointerCast,
                    operand: Box::new(value),
                },
                ty: param.clone(),
                span,
            },
            // A scalar for a vector parameter is repeated into every lane (see `SPLAT_COST`).
            Type::Vector(..) if !value.ty.is_vector() => self.operand_for(value, param),
            _ => match param.scalar() {
                Some(s) => self.convert_scalar(value, s),
                None => value,
            },
        }
    }

    /// `convert_<type>[_sat][_rte|_rtz|_rtp|_rtn](x)`.
    fn convert_builtin(
        &mut self,
        name: &str,
        rest: &str,
        values: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let Some((target, saturate, rounding)) = convert_target(rest) else {
            self.error(
                span,
                format!("implicit declaration of function '{name}' is invalid in OpenCL"),
            );
            return None;
        };
        let [value] = <[Expr; 1]>::try_from(values).ok()?;
        if !value.ty.is_arithmetic()
            || value.ty.lanes() != target.lanes()
            || value.ty.element() == Some(Scalar::Bool)
        {
            self.error(
                span,
                format!("no matching function for call to '{name}({})'", value.ty),
            );
            return None;
        }
        if saturate && target.is_floating() {
            self.error(
                span,
                format!("'{name}': saturation is only defined for conversions to integer types"),
            );
            return None;
        }
        self.check_precision(&target, span)?;
        let e = Expr {
            kind: ExprKind::Convert {
                kind: ConvertKind::Numeric { saturate, rounding },
                operand: Box::new(value),
            },
            ty: target,
            span,
        };
        Some(self.folded(e))
    }

    /// `as_<type>(x)`: the same bits as another type of the same size (6.2.4.2).
    fn as_builtin(
        &mut self,
        name: &str,
        rest: &str,
        values: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let Some(target) = as_target(rest) else {
            self.error(
                span,
                format!("implicit declaration of function '{name}' is invalid in OpenCL"),
            );
            return None;
        };
        let [value] = <[Expr; 1]>::try_from(values).ok()?;
        if !value.ty.is_arithmetic() || value.ty.element() == Some(Scalar::Bool) {
            self.error(
                span,
                format!("invalid reinterpretation of '{}' as '{target}'", value.ty),
            );
            return None;
        }
        if value.ty.size() != target.size() {
            self.error(
                span,
                format!(
                    "invalid reinterpretation: sizes of '{target}' and '{}' must match",
                    value.ty
                ),
            );
            return None;
        }
        self.check_precision(&target, span)?;
        let e = Expr {
            kind: ExprKind::Convert {
                kind: ConvertKind::Bitcast,
                operand: Box::new(value),
            },
            ty: target,
            span,
        };
        Some(self.folded(e))
    }

    /// `double` and `half` values need their extension.
    fn check_precision(&mut self, ty: &Type, span: Span) -> Option<()> {
        match ty.element() {
            Some(Scalar::Double) if !self.extensions.fp64 => {
                self.error(
                    span,
                    format!("use of type '{ty}' requires cl_khr_fp64 extension to be enabled"),
                );
                None
            }
            Some(Scalar::Half) if !self.extensions.fp16 => {
                self.error(
                    span,
                    format!("use of type '{ty}' requires cl_khr_fp16 extension to be enabled"),
                );
                None
            }
            _ => Some(()),
        }
    }

    /// `shuffle(x, mask)` / `shuffle2(x, y, mask)`: `mask` is an unsigned integer vector with
    /// elements as wide as `x`'s; the result has `x`'s element type and `mask`'s lanes.
    fn shuffle(&mut self, name: &str, values: Vec<Expr>, span: Span) -> Option<Expr> {
        let want = if name == "shuffle" { 2 } else { 3 };
        let widths = [2u8, 4, 8, 16];
        let valid = values.len() == want
            && {
                let x = &values[0];
                let mask = &values[want - 1];
                matches!((&x.ty, &mask.ty), (Type::Vector(xe, xn), Type::Vector(me, mn))
                if widths.contains(xn) && widths.contains(mn) && me.is_integer() && !me.is_signed() && me.size() == xe.size())
                    && (want == 2 || values[1].ty == x.ty)
            };
        if !valid {
            let types = values
                .iter()
                .map(|v| v.ty.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            self.error(
                span,
                format!("no matching function for call to '{name}({types})'"),
            );
            return None;
        }
        let ty = Type::Vector(values[0].ty.element()?, values[want - 1].ty.lanes());
        Some(Expr {
            kind: ExprKind::Builtin {
                id: builtin_id(name)?,
                args: values,
            },
            ty,
            span,
        })
    }

    /// `printf(format, ...)`: the format must be a string literal (6.12.13.2).
    fn printf(&mut self, values: Vec<Expr>, span: Span) -> Option<Expr> {
        match values.first() {
            Some(Expr {
                kind: ExprKind::StringLiteral(_),
                ..
            }) => {}
            _ => {
                self.error(span, "the format of printf must be a string literal");
                return None;
            }
        }
        for v in &values[1..] {
            if !v.ty.is_arithmetic() && !v.ty.is_pointer() {
                self.error(
                    v.span,
                    format!("cannot pass a value of type '{}' to printf", v.ty),
                );
                return None;
            }
        }
        Some(Expr {
            kind: ExprKind::Builtin {
                id: builtin_id("printf")?,
                args: values,
            },
            ty: Type::int(),
            span,
        })
    }
}
