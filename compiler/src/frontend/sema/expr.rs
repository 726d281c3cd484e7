//! Expressions: every operator of OpenCL C with its typing rules (section 6.3), implicit
//! conversions (6.2.1, 6.2.6), casts and vector literals (6.1.6, 6.2.2), swizzles (6.1.7),
//! pointers and address spaces (6.5), `sizeof` and `vec_step`.

use std::sync::Arc;

use super::super::ast::{self, AssignOp, BinaryOp as AstBinary, UnaryOp as AstUnary};
use super::super::literal;
use super::super::source::Span;
use super::super::tir::{
    BinaryOp, Constant, ConvertKind, Expr, ExprKind, Init, Place, PlaceKind, Rounding, UnaryOp,
};
use super::super::types::{
    self, AddressSpace, ConversionError, QualType, Qualifiers, Scalar, Type, storage_lanes,
};
use super::constant::{fold, round_float, signed_value, truncate};
use super::{Analyzer, Symbol};

/// An operand: a value, or a place (an lvalue) that becomes a value when read.
pub(super) enum Operand {
    Value(Expr),
    Place(Place),
}

fn expr(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// Whether `e` is a null pointer constant (C99 6.3.2.3): an integer constant expression
/// with the value 0, or one cast to `void *`. It converts to a pointer of any address
/// space (clang accepts `local_ptr == NULL`; `NULL` is `((void*)0)`, a private pointer).
pub(super) fn is_null_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Convert {
            kind: ConvertKind::IntToPointer,
            operand,
        } => matches!(&e.ty, Type::Pointer(p) if p.ty.is_void()) && is_null_constant(operand),
        _ => {
            e.ty.is_integer()
                && e.ty.scalar().is_some()
                && matches!(fold(e), Some(Constant::Int(v)) if v[0] == 0)
        }
    }
}

/// The null pointer of type `to` (a pointer type), for a null pointer constant at `span`.
fn null_pointer(to: &Type, span: Span) -> Expr {
    expr(
        ExprKind::Convert {
            kind: ConvertKind::IntToPointer,
            operand: Box::new(Expr::int_const(0, Scalar::ULong, span)),
        },
        to.clone(),
        span,
    )
}

impl Analyzer<'_> {
    /// An expression used as a value.
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Option<Expr> {
        let operand = self.operand(e)?;
        Some(self.rvalue(operand))
    }

    /// Reads a place: arrays decay to a pointer to their first element (C99 6.3.2.1).
    pub(super) fn rvalue(&mut self, operand: Operand) -> Expr {
        match operand {
            Operand::Value(v) => v,
            Operand::Place(p) => {
                let span = p.span;
                if let Type::Array(elem, _) = &p.ty.ty {
                    let pointer = Type::Pointer(Box::new(QualType {
                        space: p.ty.space,
                        ..(**elem).clone()
                    }));
                    let address = expr(
                        ExprKind::AddressOf(Box::new(p.clone())),
                        pointer.clone(),
                        span,
                    );
                    return expr(
                        ExprKind::Convert {
                            kind: ConvertKind::Decay,
                            operand: Box::new(address),
                        },
                        pointer,
                        span,
                    );
                }
                let ty = p.ty.ty.clone();
                expr(ExprKind::Load(Box::new(p)), ty, span)
            }
        }
    }

    /// An expression that must denote a place (assignment targets, `&`, `++`).
    pub(super) fn place(&mut self, e: &ast::Expr, what: &str) -> Option<Place> {
        match self.operand(e)? {
            Operand::Place(p) => Some(p),
            Operand::Value(_) => {
                self.error(
                    e.span,
                    format!("expression is not assignable ({what} requires an lvalue)"),
                );
                None
            }
        }
    }

    fn operand(&mut self, e: &ast::Expr) -> Option<Operand> {
        let span = e.span;
        let value = |kind, ty| Some(Operand::Value(expr(kind, ty, span)));
        match &e.kind {
            ast::ExprKind::Ident(name) => self.identifier(name, span),
            ast::ExprKind::IntLiteral(text) => match literal::parse_int(text) {
                Ok(l) => value(
                    ExprKind::Const(Constant::Int(vec![l.value])),
                    Type::Scalar(l.ty),
                ),
                Err(m) => {
                    self.error(span, m);
                    None
                }
            },
            ast::ExprKind::FloatLiteral(text) => self.float_literal(text, span).map(Operand::Value),
            ast::ExprKind::CharLiteral(text) => match literal::parse_char(text) {
                Ok(v) => value(
                    ExprKind::Const(Constant::Int(vec![truncate(v as u64, Scalar::Int)])),
                    Type::int(),
                ),
                Err(m) => {
                    self.error(span, m);
                    None
                }
            },
            ast::ExprKind::StringLiteral(pieces) => {
                let bytes = self.string_bytes(pieces)?;
                let pointee = QualType {
                    ty: Type::Scalar(Scalar::Char),
                    quals: Qualifiers {
                        is_const: true,
                        ..Default::default()
                    },
                    space: AddressSpace::Constant,
                };
                value(
                    ExprKind::StringLiteral(bytes),
                    Type::Pointer(Box::new(pointee)),
                )
            }
            ast::ExprKind::Paren(inner) => self.operand(inner),
            ast::ExprKind::StmtExpr(block) => {
                self.statement_expression(block, span).map(Operand::Value)
            }
            ast::ExprKind::ParenList(items) => {
                // Outside a cast, a parenthesized list is the comma operator.
                let mut result: Option<Expr> = None;
                for item in items {
                    let v = self.expr(item)?;
                    result = Some(match result {
                        None => v,
                        Some(l) => {
                            let ty = v.ty.clone();
                            self.folded(expr(
                                ExprKind::Comma {
                                    lhs: Box::new(l),
                                    rhs: Box::new(v),
                                },
                                ty,
                                span,
                            ))
                        }
                    });
                }
                result.map(Operand::Value)
            }
            ast::ExprKind::Call { callee, args } => {
                self.call(callee, args, span).map(Operand::Value)
            }
            ast::ExprKind::Index { base, index } => {
                self.index(base, index, span).map(Operand::Place)
            }
            ast::ExprKind::Member {
                base,
                member,
                arrow,
            } => self.member(base, member, *arrow, span),
            ast::ExprKind::PostIncrement(target) => {
                self.inc_dec(target, true, false, span).map(Operand::Value)
            }
            ast::ExprKind::PostDecrement(target) => {
                self.inc_dec(target, false, false, span).map(Operand::Value)
            }
            ast::ExprKind::Unary { op, operand } => self.unary(*op, operand, span),
            ast::ExprKind::SizeofExpr(inner) => {
                let ty = match self.operand(inner)? {
                    Operand::Place(p) => p.ty.ty,
                    // A string literal is an array of its bytes and the NUL (C99 6.4.5):
                    // `sizeof("ab")` is 3, though clift hands the literal on as a pointer.
                    Operand::Value(Expr {
                        kind: ExprKind::StringLiteral(bytes),
                        ..
                    }) => Type::Array(
                        Box::new(QualType::new(Type::Scalar(Scalar::Char))),
                        Some(bytes.len() as u64),
                    ),
                    Operand::Value(v) => v.ty,
                };
                self.size_of(&ty, span)
            }
            ast::ExprKind::SizeofType(t) => {
                let ty = self.type_name(t)?;
                self.size_of(&ty.ty, span)
            }
            ast::ExprKind::VecStepExpr(inner) => {
                let ty = match self.operand(inner)? {
                    Operand::Place(p) => p.ty.ty,
                    Operand::Value(v) => v.ty,
                };
                self.vec_step(&ty, span)
            }
            ast::ExprKind::VecStepType(t) => {
                let ty = self.type_name(t)?;
                self.vec_step(&ty.ty, span)
            }
            ast::ExprKind::Cast { ty, operand } => {
                let target = self.type_name(ty)?.ty;
                self.cast_expression(target, operand, span)
                    .map(Operand::Value)
            }
            ast::ExprKind::CompoundLiteral { ty, init } => {
                let target = self.type_name(ty)?.ty;
                match (&target, &init.kind) {
                    (Type::Vector(elem, n), ast::InitializerKind::List(items))
                        if items.iter().all(|i| i.designators.is_empty()) =>
                    {
                        let parts = items
                            .iter()
                            .map(|i| match &i.value.kind {
                                ast::InitializerKind::Expr(e) => self.expr(e),
                                ast::InitializerKind::List(_) => None,
                            })
                            .collect::<Option<Vec<_>>>()?;
                        self.vector_literal(*elem, *n, parts, span)
                            .map(Operand::Value)
                    }
                    _ => self
                        .compound_literal(target, init, span)
                        .map(Operand::Place),
                }
            }
            ast::ExprKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => self
                .binary_expression(*op, *op_span, lhs, rhs, span)
                .map(Operand::Value),
            ast::ExprKind::Assign {
                op,
                op_span,
                lhs,
                rhs,
            } => self
                .assign(*op, *op_span, lhs, rhs, span)
                .map(Operand::Value),
            ast::ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => self
                .conditional(cond, then_expr, else_expr, span)
                .map(Operand::Value),
        }
    }

    fn identifier(&mut self, name: &Arc<str>, span: Span) -> Option<Operand> {
        match self.lookup(name).cloned() {
            Some(Symbol::Local(id)) => {
                let ty = self.func().locals[id.0 as usize].ty.clone();
                Some(Operand::Place(Place {
                    kind: PlaceKind::Local(id),
                    ty,
                    span,
                }))
            }
            Some(Symbol::Global(id)) => {
                let ty = self.program.globals[id.0 as usize].ty.clone();
                Some(Operand::Place(Place {
                    kind: PlaceKind::Global(id),
                    ty,
                    span,
                }))
            }
            Some(Symbol::EnumConstant(v, s)) => Some(Operand::Value(expr(
                ExprKind::Const(Constant::Int(vec![truncate(v as u64, s)])),
                Type::Scalar(s),
                span,
            ))),
            Some(Symbol::Function(_)) => {
                self.error(
                    span,
                    format!(
                        "function '{name}' can only be called (OpenCL C has no function pointers)"
                    ),
                );
                None
            }
            Some(Symbol::Typedef(_)) => {
                self.error(
                    span,
                    format!("unexpected type name '{name}': expected expression"),
                );
                None
            }
            None => {
                self.error(span, format!("use of undeclared identifier '{name}'"));
                None
            }
        }
    }

    /// A floating constant: `double` needs cl_khr_fp64, or becomes `float` as clang does
    /// (and as `-cl-single-precision-constant` asks); `half` needs cl_khr_fp16.
    fn float_literal(&mut self, text: &str, span: Span) -> Option<Expr> {
        let mut l = match literal::parse_float(text) {
            Ok(l) => l,
            Err(m) => {
                self.error(span, m);
                return None;
            }
        };
        if l.ty == Scalar::Double
            && (self.options.single_precision_constant || !self.extensions.fp64)
        {
            if !self.options.single_precision_constant {
                self.warning(
                    span,
                    "double precision constant requires cl_khr_fp64, casting to single precision",
                );
            }
            let single = if text.starts_with("0x") || text.starts_with("0X") {
                literal::parse_float(&format!("{text}f"))
                    .map(|f| f.value)
                    .unwrap_or(l.value)
            } else {
                text.parse::<f32>().map(f64::from).unwrap_or(l.value)
            };
            l = literal::FloatLiteral {
                value: single,
                ty: Scalar::Float,
            };
        }
        if l.ty == Scalar::Half && !self.extensions.fp16 {
            self.error(span, "half precision constant requires cl_khr_fp16");
            return None;
        }
        Some(expr(
            ExprKind::Const(Constant::Float(vec![l.value])),
            Type::Scalar(l.ty),
            span,
        ))
    }

    /// The bytes of adjacent string literals, joined, with the terminating NUL.
    pub(super) fn string_bytes(&mut self, pieces: &[ast::StrPiece]) -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        for p in pieces {
            let body = p
                .text
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .unwrap_or(&p.text);
            match literal::unescape(body) {
                Ok(b) => bytes.extend(b),
                Err(m) => {
                    self.error(p.span, m);
                    return None;
                }
            }
        }
        bytes.push(0);
        Some(bytes)
    }

    fn size_of(&mut self, ty: &Type, span: Span) -> Option<Operand> {
        if !self.is_complete_object(ty) {
            self.error(
                span,
                format!("invalid application of 'sizeof' to an incomplete type '{ty}'"),
            );
            return None;
        }
        // sizeof of `bool`, the image types, `sampler_t` and `event_t` is implementation-
        // defined (6.3.k); clift gives current clang's values on 64-bit targets, where
        // all of them are pointer-sized (`ASTContext::getTypeInfo`), even `sampler_t`,
        // which clift holds as a 32-bit value.
        if matches!(ty, Type::Sampler) {
            return Some(Operand::Value(Expr::int_const(8, Scalar::ULong, span)));
        }
        Some(Operand::Value(Expr::int_const(
            ty.size(),
            Scalar::ULong,
            span,
        )))
    }

    /// `vec_step(T)`: lanes of a vector (4 for 3-vectors), 1 for scalars (6.11.1): an `int`.
    fn vec_step(&mut self, ty: &Type, span: Span) -> Option<Operand> {
        if ty.element().is_none() {
            self.error(
                span,
                format!("vec_step requires a built-in scalar or vector type, '{ty}' invalid"),
            );
            return None;
        }
        Some(Operand::Value(Expr::int_const(
            ty.vec_step(),
            Scalar::Int,
            span,
        )))
    }

    /// `base[index]`: an element of an array, or `*(pointer + index)`.
    fn index(&mut self, base: &ast::Expr, index: &ast::Expr, span: Span) -> Option<Place> {
        let base = self.operand(base)?;
        let index_value = self.expr(index)?;
        if !index_value.ty.scalar().is_some_and(Scalar::is_integer) {
            self.error(index.span, "array subscript is not an integer");
            return None;
        }
        match base {
            Operand::Place(p) if matches!(p.ty.ty, Type::Array(..)) => {
                let Type::Array(elem, _) = &p.ty.ty else {
                    return None;
                };
                let ty = QualType {
                    space: p.ty.space,
                    ..(**elem).clone()
                };
                Some(Place {
                    kind: PlaceKind::Element {
                        array: Box::new(p),
                        index: Box::new(index_value),
                    },
                    ty,
                    span,
                })
            }
            Operand::Place(p) if p.ty.ty.is_vector() => self.vector_subscript(p, index_value, span),
            // `(a + b)[i]`: the value is held in an unnamed variable, then subscripted.
            Operand::Value(v) if v.ty.is_vector() && self.current.is_some() => {
                let ty = QualType::new(v.ty.clone());
                let local = self.new_local(Arc::from("<vector value>"), ty.clone(), span);
                let place = Place {
                    kind: PlaceKind::CompoundLiteral {
                        local,
                        init: Box::new(Init::Expr(v)),
                    },
                    ty,
                    span,
                };
                self.vector_subscript(place, index_value, span)
            }
            other => {
                let pointer = self.rvalue(other);
                let Type::Pointer(pointee) = pointer.ty.clone() else {
                    self.error(
                        span,
                        "subscripted value is not an array, pointer, or vector",
                    );
                    return None;
                };
                let sum = self.pointer_offset(pointer, index_value, false, span)?;
                Some(Place {
                    kind: PlaceKind::Deref(Box::new(sum)),
                    ty: *pointee,
                    span,
                })
            }
        }
    }

    fn pointer_offset(
        &mut self,
        pointer: Expr,
        offset: Expr,
        subtract: bool,
        span: Span,
    ) -> Option<Expr> {
        let Type::Pointer(pointee) = &pointer.ty else {
            return None;
        };
        if !self.is_complete_object(&pointee.ty) {
            self.error(
                span,
                format!(
                    "arithmetic on a pointer to an incomplete type '{}'",
                    pointee.ty
                ),
            );
            return None;
        }
        let offset = self.convert_scalar(offset, Scalar::Long);
        let ty = pointer.ty.clone();
        Some(expr(
            ExprKind::PointerOffset {
                pointer: Box::new(pointer),
                offset: Box::new(offset),
                subtract,
            },
            ty,
            span,
        ))
    }

    /// `base.member`, `base->member`, and swizzles of vectors.
    fn member(
        &mut self,
        base: &ast::Expr,
        member: &ast::Ident,
        arrow: bool,
        span: Span,
    ) -> Option<Operand> {
        let base = self.operand(base)?;
        let base = if arrow {
            let pointer = self.rvalue(base);
            let Type::Pointer(pointee) = pointer.ty.clone() else {
                self.error(
                    span,
                    format!("member reference type '{}' is not a pointer", pointer.ty),
                );
                return None;
            };
            Operand::Place(Place {
                kind: PlaceKind::Deref(Box::new(pointer)),
                ty: *pointee,
                span,
            })
        } else {
            base
        };
        let ty = match &base {
            Operand::Place(p) => p.ty.ty.clone(),
            Operand::Value(v) => v.ty.clone(),
        };
        match &ty {
            Type::Record(r) => {
                let Some(path) = super::record::member_path(r, &member.name) else {
                    self.error(
                        member.span,
                        format!("no member named '{}' in '{ty}'", member.name),
                    );
                    return None;
                };
                let mut place = match base {
                    Operand::Place(p) => p,
                    // A struct value that is not a variable (a call's result): its fields
                    // can be read, not assigned.
                    Operand::Value(v) => {
                        let mut record_ty = QualType::new(v.ty.clone());
                        record_ty.quals.is_const = true;
                        Place {
                            kind: PlaceKind::Value(Box::new(v)),
                            ty: record_ty,
                            span,
                        }
                    }
                };
                // One field per step; more than one through anonymous members.
                for index in path {
                    let Type::Record(r) = &place.ty.ty else {
                        return None;
                    };
                    let field_ty = r.fields[index as usize].ty.clone();
                    let ty = QualType {
                        space: place.ty.space,
                        quals: merge(place.ty.quals, field_ty.quals),
                        ty: field_ty.ty,
                    };
                    place = Place {
                        kind: PlaceKind::Field {
                            record: Box::new(place),
                            field: index,
                        },
                        ty,
                        span,
                    };
                }
                Some(Operand::Place(place))
            }
            Type::Vector(elem, n) if !arrow => {
                let lanes = self.swizzle_lanes(&member.name, *n, member.span)?;
                let result = if lanes.len() == 1 {
                    Type::Scalar(*elem)
                } else {
                    Type::Vector(*elem, lanes.len() as u8)
                };
                match base {
                    Operand::Place(p) => {
                        let ty = QualType {
                            ty: result,
                            ..p.ty.clone()
                        };
                        Some(Operand::Place(Place {
                            kind: PlaceKind::Lanes {
                                vector: Box::new(p),
                                lanes,
                            },
                            ty,
                            span,
                        }))
                    }
                    Operand::Value(v) => {
                        let swizzle = expr(
                            ExprKind::Swizzle {
                                base: Box::new(v),
                                lanes,
                            },
                            result,
                            span,
                        );
                        Some(Operand::Value(self.folded(swizzle)))
                    }
                }
            }
            _ => {
                self.error(
                    span,
                    format!("member reference base type '{ty}' is not a structure or union"),
                );
                None
            }
        }
    }

    /// A compound literal of a non-vector type (C99 6.5.2.5): an unnamed variable of the
    /// function (an lvalue), initialized where the literal is evaluated.
    fn compound_literal(
        &mut self,
        target: Type,
        init: &ast::Initializer,
        span: Span,
    ) -> Option<Place> {
        if self.current.is_none() {
            self.error(span, "compound literals are not supported at program scope");
            return None;
        }
        if matches!(
            target,
            Type::Void | Type::Function(_) | Type::Image(_) | Type::Sampler | Type::Event
        ) {
            self.error(
                span,
                format!("compound literal of type '{target}' is invalid"),
            );
            return None;
        }
        // An array without a length takes it from the initializer; anything else must be
        // complete before it can be initialized.
        if !matches!(target, Type::Array(_, None)) && !self.is_complete_object(&target) {
            self.error(
                span,
                format!("compound literal has incomplete type '{target}'"),
            );
            return None;
        }
        let mut ty = QualType::new(target);
        let init = self.initializer(&mut ty, init)?;
        let local = self.new_local(Arc::from("<compound literal>"), ty.clone(), span);
        Some(Place {
            kind: PlaceKind::CompoundLiteral {
                local,
                init: Box::new(init),
            },
            ty,
            span,
        })
    }

    /// `v[i]`, a clang extension: a constant index is a lane of the vector place; any other
    /// index reads or writes element `i` of the vector's storage, as `((T *)&v)[i]`
    /// (clang accepts both; an index out of range is undefined there too).
    fn vector_subscript(&mut self, p: Place, index: Expr, span: Span) -> Option<Place> {
        let elem = QualType {
            ty: Type::Scalar(p.ty.ty.element()?),
            ..p.ty.clone()
        };
        if let Some(Constant::Int(i)) = fold(&index) {
            let lanes = u64::from(p.ty.ty.lanes());
            if i[0] >= lanes {
                self.error(index.span, "vector subscript out of range");
                return None;
            }
            return Some(Place {
                kind: PlaceKind::Lanes {
                    vector: Box::new(p),
                    lanes: vec![i[0] as u8],
                },
                ty: elem,
                span,
            });
        }
        if matches!(p.kind, PlaceKind::Lanes { .. }) {
            self.error(
                index.span,
                "a swizzle can only be subscripted with a constant index",
            );
            return None;
        }
        let vector_pointer = Type::Pointer(Box::new(p.ty.clone()));
        let address = expr(ExprKind::AddressOf(Box::new(p)), vector_pointer, span);
        let first = expr(
            ExprKind::Convert {
                kind: ConvertKind::PointerCast,
                operand: Box::new(address),
            },
            Type::Pointer(Box::new(elem.clone())),
            span,
        );
        let element = self.pointer_offset(first, index, false, span)?;
        Some(Place {
            kind: PlaceKind::Deref(Box::new(element)),
            ty: elem,
            span,
        })
    }

    /// The lanes a swizzle names (6.1.7): `xyzw` (for vectors of up to 4), `s0`–`sF`, `hi`,
    /// `lo`, `even`, `odd`. The result must have 1, 2, 3, 4, 8 or 16 lanes.
    fn swizzle_lanes(&mut self, name: &str, n: u8, span: Span) -> Option<Vec<u8>> {
        let storage = storage_lanes(n) as u8;
        let half = storage / 2;
        let lanes: Vec<u8> = match name {
            "lo" => (0..half).collect(),
            "hi" => (half..storage).collect(),
            "even" => (0..storage).step_by(2).collect(),
            "odd" => (1..storage).step_by(2).collect(),
            _ if name.starts_with(['s', 'S']) && name.len() > 1 => {
                let mut v = Vec::new();
                for c in name[1..].chars() {
                    let Some(d) = c.to_digit(16) else {
                        self.error(span, format!("illegal vector component name '{c}'"));
                        return None;
                    };
                    v.push(d as u8);
                }
                v
            }
            _ => {
                // `xyzw`, or OpenCL C 3.0's `rgba`, which clang accepts in 1.2 with a
                // warning; one swizzle uses one set.
                let set = if name.starts_with(['r', 'g', 'b', 'a']) {
                    self.warning(
                        span,
                        format!(
                            "vector component name '{name}' is a feature from OpenCL version 3.0 onwards"
                        ),
                    );
                    "rgba"
                } else {
                    "xyzw"
                };
                let mut v = Vec::new();
                for c in name.chars() {
                    let Some(i) = set.find(c) else {
                        self.error(span, format!("illegal vector component name '{c}'"));
                        return None;
                    };
                    v.push(i as u8);
                }
                if n > 4 {
                    // 6.1.7 allows `xyzw` only on vectors of up to 4 components, but clang
                    // (and the CTS's own kernels) read the first four lanes of wider ones.
                    self.warning(span, format!("vector component name '{name}' on a vector of {n} elements is an extension (OpenCL C 1.2 allows s0-sF only)"));
                }
                v
            }
        };
        if let Some(&bad) = lanes
            .iter()
            .find(|&&l| l >= n && !matches!(name, "hi" | "odd"))
        {
            self.error(
                span,
                format!("vector component access exceeds type: lane {bad} of a vector of {n}"),
            );
            return None;
        }
        if ![1, 2, 3, 4, 8, 16].contains(&lanes.len()) {
            self.error(
                span,
                format!(
                    "a swizzle of {} components does not form a vector type",
                    lanes.len()
                ),
            );
            return None;
        }
        Some(lanes)
    }

    fn unary(&mut self, op: AstUnary, operand: &ast::Expr, span: Span) -> Option<Operand> {
        match op {
            AstUnary::AddressOf => {
                let place = self.place(operand, "'&'")?;
                if let PlaceKind::Lanes { .. } = place.kind {
                    self.error(span, "address of vector element requested");
                    return None;
                }
                let ty = Type::Pointer(Box::new(place.ty.clone()));
                Some(Operand::Value(expr(
                    ExprKind::AddressOf(Box::new(place)),
                    ty,
                    span,
                )))
            }
            AstUnary::Deref => {
                let pointer = self.expr(operand)?;
                let Type::Pointer(pointee) = pointer.ty.clone() else {
                    self.error(
                        span,
                        format!(
                            "indirection requires pointer operand ('{}' invalid)",
                            pointer.ty
                        ),
                    );
                    return None;
                };
                if pointee.ty.is_void() {
                    self.error(span, "cannot dereference a 'void *'");
                    return None;
                }
                Some(Operand::Place(Place {
                    kind: PlaceKind::Deref(Box::new(pointer)),
                    ty: *pointee,
                    span,
                }))
            }
            AstUnary::PreIncrement => self.inc_dec(operand, true, true, span).map(Operand::Value),
            AstUnary::PreDecrement => self.inc_dec(operand, false, true, span).map(Operand::Value),
            AstUnary::Plus | AstUnary::Minus | AstUnary::BitNot => {
                let value = self.expr(operand)?;
                let integer_only = op == AstUnary::BitNot;
                if !value.ty.is_arithmetic() || (integer_only && !value.ty.is_integer()) {
                    self.error(
                        span,
                        format!("invalid argument type '{}' to unary expression", value.ty),
                    );
                    return None;
                }
                // Scalars are promoted as in C; vectors are not (6.3.b).
                let value = match value.ty.scalar() {
                    Some(s) if !s.is_float() => self.convert_scalar(value, s.promoted()),
                    _ => value,
                };
                if op == AstUnary::Plus {
                    return Some(Operand::Value(value));
                }
                let op = if op == AstUnary::Minus {
                    UnaryOp::Neg
                } else {
                    UnaryOp::BitNot
                };
                let ty = value.ty.clone();
                Some(Operand::Value(self.folded(expr(
                    ExprKind::Unary {
                        op,
                        operand: Box::new(value),
                    },
                    ty,
                    span,
                ))))
            }
            AstUnary::LogicalNot => {
                let value = self.expr(operand)?;
                if value.ty.is_vector() {
                    let ty = types::comparison_result(&value.ty);
                    return Some(Operand::Value(self.folded(expr(
                        ExprKind::Unary {
                            op: UnaryOp::VectorNot,
                            operand: Box::new(value),
                        },
                        ty,
                        span,
                    ))));
                }
                if !value.ty.is_c_scalar() {
                    self.error(
                        span,
                        format!("invalid argument type '{}' to unary expression", value.ty),
                    );
                    return None;
                }
                Some(Operand::Value(self.folded(expr(
                    ExprKind::Unary {
                        op: UnaryOp::LogicalNot,
                        operand: Box::new(value),
                    },
                    Type::int(),
                    span,
                ))))
            }
        }
    }

    fn inc_dec(
        &mut self,
        target: &ast::Expr,
        increment: bool,
        prefix: bool,
        span: Span,
    ) -> Option<Expr> {
        let place = self.place(target, if increment { "'++'" } else { "'--'" })?;
        self.check_modifiable(&place, span)?;
        if !place.ty.ty.is_arithmetic() && !place.ty.ty.is_pointer() {
            self.error(
                span,
                format!("cannot increment value of type '{}'", place.ty.ty),
            );
            return None;
        }
        let ty = place.ty.ty.clone();
        Some(expr(
            ExprKind::IncDec {
                place: Box::new(place),
                increment,
                prefix,
            },
            ty,
            span,
        ))
    }

    fn check_modifiable(&mut self, place: &Place, span: Span) -> Option<()> {
        if place.ty.quals.is_const || place.ty.space == AddressSpace::Constant {
            self.error(
                span,
                "cannot assign to a variable that is const or in the __constant address space",
            );
            return None;
        }
        if matches!(place.ty.ty, Type::Array(..)) {
            self.error(
                span,
                format!("array type '{}' is not assignable", place.ty.ty),
            );
            return None;
        }
        // 6.9.b: "An image function argument cannot be modified." Images only exist as
        // parameters, so every image place is one.
        if let Type::Image(kind) = &place.ty.ty {
            self.error(
                span,
                format!(
                    "image argument of type '{}' cannot be modified",
                    kind.name()
                ),
            );
            return None;
        }
        if let PlaceKind::Lanes { lanes, .. } = &place.kind {
            let mut seen = [false; 16];
            for &l in lanes {
                if std::mem::replace(&mut seen[l as usize & 15], true) {
                    self.error(
                        span,
                        "vector is not assignable (contains duplicate components)",
                    );
                    return None;
                }
            }
        }
        Some(())
    }

    /// A cast: `(T)(a, b, ...)` with a vector `T` is a vector literal; otherwise C's cast
    /// with OpenCL's rules (scalars to vectors, no casts between vector types).
    fn cast_expression(&mut self, target: Type, operand: &ast::Expr, span: Span) -> Option<Expr> {
        if let (Type::Vector(elem, n), ast::ExprKind::ParenList(items)) = (&target, &operand.kind) {
            let parts = items
                .iter()
                .map(|i| self.expr(i))
                .collect::<Option<Vec<_>>>()?;
            return self.vector_literal(*elem, *n, parts, span);
        }
        let value = self.expr(operand)?;
        self.cast(value, &target, span)
    }

    /// `(float4)(a, b.xy, c)`: the parts' lanes must add up to the vector's (6.1.6); a single
    /// scalar is repeated into every lane.
    pub(super) fn vector_literal(
        &mut self,
        elem: Scalar,
        n: u8,
        parts: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let target = Type::Vector(elem, n);
        if parts.len() == 1 && parts[0].ty.scalar().is_some() {
            let part = parts.into_iter().next()?;
            return self.cast(part, &target, span);
        }
        let converted = self.vector_parts(elem, n, parts, VectorForm::Literal, span)?;
        Some(self.folded(expr(ExprKind::VectorLiteral(converted), target, span)))
    }

    /// The parts of a vector of `n` lanes of `elem`, checked and converted: each a scalar
    /// (converted to `elem`) or a vector of element type `elem`. A literal's parts must fill
    /// the vector exactly; an initializer's may fill only its first lanes (the rest are zero,
    /// added here) but not more.
    pub(super) fn vector_parts(
        &mut self,
        elem: Scalar,
        n: u8,
        parts: Vec<Expr>,
        form: VectorForm,
        span: Span,
    ) -> Option<Vec<Expr>> {
        let target = Type::Vector(elem, n);
        let mut lanes = 0u32;
        let mut converted = Vec::with_capacity(parts.len());
        for part in parts {
            let part_span = part.span;
            match &part.ty {
                Type::Vector(e, m) if *e == elem => {
                    lanes += u32::from(*m);
                    converted.push(part);
                }
                _ if part.ty.scalar().is_some() && !part.ty.is_vector() => {
                    lanes += 1;
                    converted.push(self.convert_scalar(part, elem));
                }
                _ => {
                    let message = match form {
                        VectorForm::Initializer => format!(
                            "initializing a component of '{target}' with an expression of incompatible type '{}'",
                            part.ty
                        ),
                        VectorForm::Literal if part.ty.is_vector() => format!(
                            "vector literal component of type '{}' does not match the element type '{}'",
                            part.ty,
                            elem.name()
                        ),
                        VectorForm::Literal => {
                            format!("invalid vector literal component of type '{}'", part.ty)
                        }
                    };
                    self.error(part_span, message);
                    return None;
                }
            }
            if form == VectorForm::Initializer && lanes > u32::from(n) {
                self.error(part_span, "excess elements in vector initializer");
                return None;
            }
        }
        match form {
            VectorForm::Literal if lanes != u32::from(n) => {
                self.error(
                    span,
                    format!(
                        "vector literal of type '{target}' needs {n} components, {lanes} given"
                    ),
                );
                return None;
            }
            VectorForm::Literal => {}
            VectorForm::Initializer => {
                while lanes < u32::from(n) {
                    let zero = Expr::int_const(0, Scalar::Int, span);
                    converted.push(self.convert_scalar(zero, elem));
                    lanes += 1;
                }
            }
        }
        Some(converted)
    }

    /// An explicit cast.
    pub(super) fn cast(&mut self, value: Expr, target: &Type, span: Span) -> Option<Expr> {
        if value.ty == *target {
            return Some(value);
        }
        match (&value.ty, target) {
            (_, Type::Void) => Some(expr(
                ExprKind::Comma {
                    lhs: Box::new(value),
                    rhs: Box::new(Expr::int_const(0, Scalar::Int, span)),
                },
                Type::Void,
                span,
            )),
            (Type::Vector(..), _) | (_, Type::Vector(..)) if value.ty.is_vector() => {
                self.error(span, format!("invalid conversion between vector types '{}' and '{target}' (use convert_{target} or as_{target})", value.ty));
                None
            }
            (from, Type::Vector(..)) if from.scalar() == Some(Scalar::Bool) => {
                Some(self.bool_splat(value, target, span))
            }
            (from, Type::Vector(elem, _)) if from.scalar().is_some() => {
                let lane = self.convert_scalar(value, *elem);
                Some(self.folded(expr(
                    ExprKind::Convert {
                        kind: ConvertKind::Splat,
                        operand: Box::new(lane),
                    },
                    target.clone(),
                    span,
                )))
            }
            (from, to) if from.scalar().is_some() && to.scalar().is_some() => {
                let to = to.scalar()?;
                let mut converted = self.convert_scalar(value, to);
                converted.ty = target.clone();
                Some(converted)
            }
            (Type::Pointer(a), Type::Pointer(b)) => {
                if a.space != b.space {
                    self.error(
                        span,
                        format!(
                            "casting '{}' to type '{target}' changes address space of pointer",
                            value.ty
                        ),
                    );
                    return None;
                }
                Some(expr(
                    ExprKind::Convert {
                        kind: ConvertKind::PointerCast,
                        operand: Box::new(value),
                    },
                    target.clone(),
                    span,
                ))
            }
            (Type::Pointer(_), to) if to.is_integer() && to.scalar().is_some() => Some(expr(
                ExprKind::Convert {
                    kind: ConvertKind::PointerToInt,
                    operand: Box::new(value),
                },
                target.clone(),
                span,
            )),
            (from, Type::Pointer(_)) if from.is_integer() && from.scalar().is_some() => {
                let wide = self.convert_scalar(value, Scalar::ULong);
                Some(expr(
                    ExprKind::Convert {
                        kind: ConvertKind::IntToPointer,
                        operand: Box::new(wide),
                    },
                    target.clone(),
                    span,
                ))
            }
            _ => {
                self.error(
                    span,
                    format!("cannot cast from '{}' to '{target}'", value.ty),
                );
                None
            }
        }
    }

    /// A `bool` repeated into every lane of the vector type `target`: -1 (all bits set) for
    /// true, 0 for false ("When casting a bool to a vector integer data type, the vector
    /// components will be set to -1", 6.2.2). clang does this for every scalar-to-vector
    /// splat of a `bool` (casts, `(T)(b)`, initialization, assignment, arguments, `return`),
    /// and for a float vector too: `(float4)true` is -1.0f in every lane.
    fn bool_splat(&mut self, value: Expr, target: &Type, span: Span) -> Expr {
        let Type::Vector(elem, n) = *target else {
            return value;
        };
        let value = self.convert_scalar(value, Scalar::Bool);
        let mask_ty = if elem.is_integer() {
            target.clone()
        } else {
            Type::Vector(Scalar::Int, n)
        };
        let mask = self.folded(expr(
            ExprKind::Convert {
                kind: ConvertKind::BoolSplat,
                operand: Box::new(value),
            },
            mask_ty,
            span,
        ));
        self.convert_lanes(mask, target)
    }

    /// Converts a scalar value to another scalar type (C's conversion; `bool` gets 0/1).
    pub(super) fn convert_scalar(&mut self, value: Expr, to: Scalar) -> Expr {
        let target = Type::Scalar(to);
        if value.ty == target
            || value.ty.scalar() == Some(to) && !matches!(value.ty, Type::Enum(..))
        {
            return value;
        }
        let span = value.span;
        let kind = if to == Scalar::Bool {
            ConvertKind::ToBool
        } else {
            ConvertKind::Numeric {
                saturate: false,
                rounding: Rounding::Default,
            }
        };
        self.folded(expr(
            ExprKind::Convert {
                kind,
                operand: Box::new(value),
            },
            target,
            span,
        ))
    }

    /// Converts lane-wise to another element type of the same shape.
    fn convert_lanes(&mut self, value: Expr, to: &Type) -> Expr {
        if value.ty == *to {
            return value;
        }
        let span = value.span;
        self.folded(expr(
            ExprKind::Convert {
                kind: ConvertKind::Numeric {
                    saturate: false,
                    rounding: Rounding::Default,
                },
                operand: Box::new(value),
            },
            to.clone(),
            span,
        ))
    }

    /// Converts an operand of an arithmetic operation to the operation's type `to` (a scalar
    /// is converted to the element type and repeated if `to` is a vector).
    pub(super) fn operand_for(&mut self, value: Expr, to: &Type) -> Expr {
        match (value.ty.is_vector(), to) {
            (false, Type::Vector(elem, _)) => {
                let span = value.span;
                let lane = self.convert_scalar(value, *elem);
                self.folded(expr(
                    ExprKind::Convert {
                        kind: ConvertKind::Splat,
                        operand: Box::new(lane),
                    },
                    to.clone(),
                    span,
                ))
            }
            (true, _) => self.convert_lanes(value, to),
            (false, _) => match to.scalar() {
                Some(s) => self.convert_scalar(value, s),
                None => value,
            },
        }
    }

    /// The implicit conversion of assignment, initialization, arguments and `return`
    /// (6.3.o: the same type, or a scalar converted to it).
    pub(super) fn assignment_conversion(
        &mut self,
        value: Expr,
        to: &Type,
        span: Span,
    ) -> Option<Expr> {
        if value.ty == *to {
            return Some(value);
        }
        match (&value.ty, to) {
            (from, _) if from.is_vector() && to.is_vector() => {
                self.error(
                    span,
                    format!("assigning to '{to}' from incompatible type '{from}'"),
                );
                None
            }
            (from, Type::Vector(..)) if from.scalar() == Some(Scalar::Bool) => {
                Some(self.bool_splat(value, to, span))
            }
            (from, Type::Vector(..)) if from.scalar().is_some() => {
                Some(self.operand_for(value, to))
            }
            (from, _) if from.scalar().is_some() && to.scalar().is_some() => {
                let s = to.scalar()?;
                let mut v = self.convert_scalar(value, s);
                v.ty = to.clone();
                Some(v)
            }
            (Type::Pointer(_), Type::Pointer(_)) if is_null_constant(&value) => {
                Some(null_pointer(to, value.span))
            }
            (Type::Pointer(a), Type::Pointer(b)) => {
                if a.space != b.space {
                    self.error(
                        span,
                        format!(
                            "assigning '{}' to '{to}' changes address space of pointer",
                            value.ty
                        ),
                    );
                    return None;
                }
                let compatible = a.ty == b.ty || a.ty.is_void() || b.ty.is_void();
                let drops_qualifiers = (a.quals.is_const && !b.quals.is_const)
                    || (a.quals.is_volatile && !b.quals.is_volatile);
                if !compatible {
                    self.warning(
                        span,
                        format!(
                            "incompatible pointer types assigning to '{to}' from '{}'",
                            value.ty
                        ),
                    );
                } else if drops_qualifiers {
                    self.warning(
                        span,
                        format!(
                            "assigning to '{to}' from '{}' discards qualifiers",
                            value.ty
                        ),
                    );
                }
                Some(expr(
                    ExprKind::Convert {
                        kind: ConvertKind::PointerCast,
                        operand: Box::new(value),
                    },
                    to.clone(),
                    span,
                ))
            }
            (from, Type::Pointer(_))
                if from.is_integer()
                    && matches!(fold(&value), Some(Constant::Int(v)) if v[0] == 0) =>
            {
                let wide = self.convert_scalar(value, Scalar::ULong);
                Some(expr(
                    ExprKind::Convert {
                        kind: ConvertKind::IntToPointer,
                        operand: Box::new(wide),
                    },
                    to.clone(),
                    span,
                ))
            }
            (Type::Record(a), Type::Record(b)) if Arc::ptr_eq(a, b) => Some(value),
            // `event_t e = 0;`: clang accepts a zero constant as the null event.
            (_, Type::Event) if is_null_constant(&value) => Some(expr(
                ExprKind::Const(Constant::Int(vec![0])),
                Type::Event,
                span,
            )),
            // `const sampler_t s = CLK_NORMALIZED_COORDS_TRUE | ...;` (6.12.14.1).
            (_, Type::Sampler) if super::builtin::sampler_constant(&value).is_some() => {
                let bits = super::builtin::sampler_constant(&value)?;
                Some(expr(
                    ExprKind::Const(Constant::Int(vec![bits])),
                    Type::Sampler,
                    span,
                ))
            }
            _ => {
                self.error(
                    span,
                    format!("assigning to '{to}' from incompatible type '{}'", value.ty),
                );
                None
            }
        }
    }

    /// The type `__typeof__` names: its type operand's, or its expression operand's (not
    /// evaluated; an array stays an array). Qualifiers and the address space are dropped,
    /// so that `__typeof__(*global_ptr) t = ...;` declares a private variable, as macro
    /// libraries expect.
    pub(super) fn typeof_type(&mut self, operand: &ast::Typeof) -> Option<Type> {
        match operand {
            ast::Typeof::Type(t) => Some(self.type_name(t)?.ty),
            ast::Typeof::Expr(e) => match self.operand(e)? {
                Operand::Place(p) => Some(p.ty.ty),
                Operand::Value(v) => Some(v.ty),
            },
        }
    }

    /// Replaces a constant expression by its value.
    pub(super) fn folded(&mut self, e: Expr) -> Expr {
        if matches!(e.kind, ExprKind::Const(_)) {
            return e;
        }
        match fold(&e) {
            Some(c) => Expr {
                kind: ExprKind::Const(c),
                ..e
            },
            None => e,
        }
    }

    /// Whether the constant value of `e` is representable in `elem` (so that `int4 + 0U`
    /// and `float4 * 2.0` are accepted as clang does).
    fn constant_fits(&self, e: &Expr, elem: Scalar) -> bool {
        let Some(c) = fold(e) else { return false };
        let from = e.ty.element().unwrap_or(Scalar::Int);
        match c {
            Constant::Int(v) => {
                let value = signed_value(v[0], from);
                if elem.is_float() {
                    return true;
                }
                let bits = elem.bits();
                let (lo, hi) = if elem.is_signed() {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                (lo..=hi).contains(&value)
            }
            Constant::Float(v) => {
                elem.is_float() && round_float(v[0], elem) == v[0]
                    || elem.is_float() && v[0].is_finite()
            }
        }
    }

    fn binary_expression(
        &mut self,
        op: AstBinary,
        op_span: Span,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        match op {
            AstBinary::Comma => {
                let l = self.expr(lhs)?;
                let r = self.expr(rhs)?;
                let ty = r.ty.clone();
                Some(expr(
                    ExprKind::Comma {
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    ty,
                    span,
                ))
            }
            AstBinary::LogicalAnd | AstBinary::LogicalOr => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                let (l, r) = (l?, r?);
                self.logical(op == AstBinary::LogicalAnd, l, r, op_span, span)
            }
            _ => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                self.binary(op, l?, r?, op_span, span)
            }
        }
    }

    fn logical(&mut self, and: bool, l: Expr, r: Expr, op_span: Span, span: Span) -> Option<Expr> {
        if l.ty.is_vector() || r.ty.is_vector() {
            let common = self.common_type(&l, &r, op_span)?;
            let (l, r) = (self.operand_for(l, &common), self.operand_for(r, &common));
            let op = if and {
                BinaryOp::VectorAnd
            } else {
                BinaryOp::VectorOr
            };
            let ty = types::comparison_result(&common);
            return Some(self.folded(expr(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                },
                ty,
                span,
            )));
        }
        for side in [&l, &r] {
            if !side.ty.is_c_scalar() {
                self.error(
                    side.span,
                    format!(
                        "invalid operand of type '{}' to a logical operator",
                        side.ty
                    ),
                );
                return None;
            }
        }
        Some(self.folded(expr(
            ExprKind::Logical {
                and,
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            Type::int(),
            span,
        )))
    }

    /// The type both operands of an arithmetic operator are converted to (6.2.6).
    fn common_type(&mut self, l: &Expr, r: &Expr, op_span: Span) -> Option<Type> {
        let fits = |value: &Type, elem: Scalar| {
            let e = if *value == l.ty { l } else { r };
            self.constant_fits(e, elem)
        };
        match types::usual_arithmetic_conversion(&l.ty, &r.ty, fits) {
            Ok(t) => Some(t),
            Err(ConversionError::VectorMismatch) => {
                self.error(op_span, format!("invalid operands: vector types '{}' and '{}' differ (no implicit conversion between vector types)", l.ty, r.ty));
                None
            }
            Err(ConversionError::ScalarRankTooHigh) => {
                let (s, v) = if l.ty.is_vector() {
                    (&r.ty, &l.ty)
                } else {
                    (&l.ty, &r.ty)
                };
                self.error(op_span, format!("cannot convert between scalar type '{s}' and vector type '{v}': the scalar has a greater rank than the vector's elements"));
                None
            }
            Err(ConversionError::NotArithmetic) => {
                self.error(
                    op_span,
                    format!(
                        "invalid operands to binary expression ('{}' and '{}')",
                        l.ty, r.ty
                    ),
                );
                None
            }
        }
    }

    /// A binary operator other than `,`, `&&`, `||`, with both operands evaluated.
    pub(super) fn binary(
        &mut self,
        op: AstBinary,
        l: Expr,
        r: Expr,
        op_span: Span,
        span: Span,
    ) -> Option<Expr> {
        // Pointer arithmetic and comparisons.
        if l.ty.is_pointer() || r.ty.is_pointer() {
            return self.pointer_binary(op, l, r, op_span, span);
        }
        let integer_only = matches!(
            op,
            AstBinary::Rem
                | AstBinary::Shl
                | AstBinary::Shr
                | AstBinary::BitAnd
                | AstBinary::BitOr
                | AstBinary::BitXor
        );
        for side in [&l, &r] {
            if !side.ty.is_arithmetic() || (integer_only && !side.ty.is_integer()) {
                self.error(
                    op_span,
                    format!(
                        "invalid operands to binary expression ('{}' and '{}')",
                        l.ty, r.ty
                    ),
                );
                return None;
            }
        }
        if matches!(op, AstBinary::Shl | AstBinary::Shr) && !l.ty.is_vector() && !r.ty.is_vector() {
            // C: each operand promoted on its own; the result has the left one's type.
            let ls = l.ty.scalar()?.promoted();
            let l = self.convert_scalar(l, ls);
            let r = self.convert_scalar(r, ls);
            let op = if op == AstBinary::Shl {
                BinaryOp::Shl
            } else {
                BinaryOp::Shr
            };
            return Some(self.folded(expr(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                },
                Type::Scalar(ls),
                span,
            )));
        }
        let common = self.common_type(&l, &r, op_span)?;
        let (l, r) = (self.operand_for(l, &common), self.operand_for(r, &common));
        let (op, ty) = match op {
            AstBinary::Mul => (BinaryOp::Mul, common),
            AstBinary::Div => (BinaryOp::Div, common),
            AstBinary::Rem => (BinaryOp::Rem, common),
            AstBinary::Add => (BinaryOp::Add, common),
            AstBinary::Sub => (BinaryOp::Sub, common),
            AstBinary::Shl => (BinaryOp::Shl, common),
            AstBinary::Shr => (BinaryOp::Shr, common),
            AstBinary::BitAnd => (BinaryOp::BitAnd, common),
            AstBinary::BitXor => (BinaryOp::BitXor, common),
            AstBinary::BitOr => (BinaryOp::BitOr, common),
            AstBinary::Lt => (BinaryOp::Lt, types::comparison_result(&common)),
            AstBinary::Gt => (BinaryOp::Gt, types::comparison_result(&common)),
            AstBinary::Le => (BinaryOp::Le, types::comparison_result(&common)),
            AstBinary::Ge => (BinaryOp::Ge, types::comparison_result(&common)),
            AstBinary::Eq => (BinaryOp::Eq, types::comparison_result(&common)),
            AstBinary::Ne => (BinaryOp::Ne, types::comparison_result(&common)),
            AstBinary::LogicalAnd | AstBinary::LogicalOr | AstBinary::Comma => return None,
        };
        let e = expr(
            ExprKind::Binary {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            ty,
            span,
        );
        if matches!(op, BinaryOp::Div | BinaryOp::Rem)
            && e.ty.is_integer()
            && matches!(fold(match &e.kind { ExprKind::Binary { rhs, .. } => rhs, _ => return Some(e) }), Some(Constant::Int(ref v)) if v.contains(&0))
        {
            self.warning(op_span, "division by zero is undefined");
            return Some(e);
        }
        Some(self.folded(e))
    }

    fn pointer_binary(
        &mut self,
        op: AstBinary,
        l: Expr,
        r: Expr,
        op_span: Span,
        span: Span,
    ) -> Option<Expr> {
        match (op, l.ty.is_pointer(), r.ty.is_pointer()) {
            (AstBinary::Add, true, false) if r.ty.is_integer() && !r.ty.is_vector() => {
                self.pointer_offset(l, r, false, span)
            }
            (AstBinary::Add, false, true) if l.ty.is_integer() && !l.ty.is_vector() => {
                self.pointer_offset(r, l, false, span)
            }
            (AstBinary::Sub, true, false) if r.ty.is_integer() && !r.ty.is_vector() => {
                self.pointer_offset(l, r, true, span)
            }
            (AstBinary::Sub, true, true) => {
                let (Type::Pointer(a), Type::Pointer(b)) = (&l.ty, &r.ty) else {
                    return None;
                };
                if a.ty != b.ty || a.space != b.space {
                    self.error(
                        op_span,
                        format!(
                            "'{}' and '{}' are not pointers to compatible types",
                            l.ty, r.ty
                        ),
                    );
                    return None;
                }
                Some(expr(
                    ExprKind::PointerDiff {
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    Type::Scalar(Scalar::Long),
                    span,
                ))
            }
            (
                AstBinary::Lt
                | AstBinary::Gt
                | AstBinary::Le
                | AstBinary::Ge
                | AstBinary::Eq
                | AstBinary::Ne,
                _,
                _,
            ) => {
                let null = is_null_constant;
                let (l, r) = match (l.ty.is_pointer(), r.ty.is_pointer()) {
                    (true, true) if null(&r) => {
                        let r = null_pointer(&l.ty, r.span);
                        (l, r)
                    }
                    (true, true) if null(&l) => {
                        let l = null_pointer(&r.ty, l.span);
                        (l, r)
                    }
                    (true, true) => {
                        let (Type::Pointer(a), Type::Pointer(b)) = (&l.ty, &r.ty) else {
                            return None;
                        };
                        if a.space != b.space {
                            self.error(
                                op_span,
                                "comparison of pointers to different address spaces",
                            );
                            return None;
                        }
                        (l, r)
                    }
                    (true, false) if null(&r) => {
                        let ty = l.ty.clone();
                        let r = self.assignment_conversion(r, &ty, op_span)?;
                        (l, r)
                    }
                    (false, true) if null(&l) => {
                        let ty = r.ty.clone();
                        let l = self.assignment_conversion(l, &ty, op_span)?;
                        (l, r)
                    }
                    _ => {
                        self.error(
                            op_span,
                            format!(
                                "comparison between pointer and integer ('{}' and '{}')",
                                l.ty, r.ty
                            ),
                        );
                        return None;
                    }
                };
                let op = match op {
                    AstBinary::Lt => BinaryOp::Lt,
                    AstBinary::Gt => BinaryOp::Gt,
                    AstBinary::Le => BinaryOp::Le,
                    AstBinary::Ge => BinaryOp::Ge,
                    AstBinary::Eq => BinaryOp::Eq,
                    _ => BinaryOp::Ne,
                };
                Some(expr(
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    Type::int(),
                    span,
                ))
            }
            _ => {
                self.error(
                    op_span,
                    format!(
                        "invalid operands to binary expression ('{}' and '{}')",
                        l.ty, r.ty
                    ),
                );
                None
            }
        }
    }

    fn assign(
        &mut self,
        op: AssignOp,
        op_span: Span,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let place = self.place(lhs, "assignment");
        let value = self.expr(rhs);
        let (place, value) = (place?, value?);
        self.check_modifiable(&place, op_span)?;
        if matches!(
            place.ty.space,
            AddressSpace::Private | AddressSpace::Local | AddressSpace::Global
        ) && place.ty.ty.scalar().is_some_and(|s| s.size() < 4)
        {
            // cl_khr_byte_addressable_store is core in 1.2: nothing to check.
        }
        let target = place.ty.ty.clone();
        match op.binary() {
            None => {
                let value = self.assignment_conversion(value, &target, span)?;
                Some(expr(
                    ExprKind::Assign {
                        place: Box::new(place),
                        op: None,
                        value: Box::new(value),
                        op_ty: target.clone(),
                    },
                    target,
                    span,
                ))
            }
            Some(bin) => {
                // `a op= b` is `a = a op b` with `a` evaluated once: type the operation as if
                // it were written out.
                let current = expr(
                    ExprKind::Load(Box::new(place.clone())),
                    target.clone(),
                    place.span,
                );
                let combined = self.binary(bin, current, value, op_span, span)?;
                let (op_ty, value) = match combined.kind {
                    ExprKind::Binary { op, lhs, rhs } => {
                        let _ = lhs;
                        (combined.ty.clone(), (Some(op), *rhs))
                    }
                    ExprKind::PointerOffset {
                        offset, subtract, ..
                    } => (
                        target.clone(),
                        (
                            Some(if subtract {
                                BinaryOp::Sub
                            } else {
                                BinaryOp::Add
                            }),
                            *offset,
                        ),
                    ),
                    ExprKind::Const(_) => {
                        self.error(span, "compound assignment to a constant");
                        return None;
                    }
                    _ => return None,
                };
                if op_ty.is_vector() && !target.is_vector() {
                    self.error(
                        span,
                        format!("assigning to '{target}' from incompatible type '{op_ty}'"),
                    );
                    return None;
                }
                let (op, value) = value;
                Some(expr(
                    ExprKind::Assign {
                        place: Box::new(place),
                        op,
                        value: Box::new(value),
                        op_ty,
                    },
                    target,
                    span,
                ))
            }
        }
    }

    /// `c ? a : b`: scalar conditions choose one side; a vector condition selects per lane on
    /// each lane's most significant bit (6.3.i), like `select`.
    fn conditional(
        &mut self,
        cond: &ast::Expr,
        then_expr: &ast::Expr,
        else_expr: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let c = self.expr(cond);
        let a = self.expr(then_expr);
        let b = self.expr(else_expr);
        let (c, a, b) = (c?, a?, b?);
        if c.ty.is_vector() {
            let Type::Vector(ce, cn) = c.ty.clone() else {
                return None;
            };
            if !ce.is_integer() {
                self.error(
                    cond.span,
                    format!("vector condition type '{}' must be an integer vector", c.ty),
                );
                return None;
            }
            let result = match (a.ty.scalar(), b.ty.scalar()) {
                // Two scalars: converted to each other without integer promotion, then to
                // vectors of the condition's length.
                (Some(x), Some(y)) if !a.ty.is_vector() && !b.ty.is_vector() => {
                    Type::Vector(types::unpromoted_common_scalar(x, y), cn)
                }
                _ => match self.common_type(&a, &b, span)? {
                    common @ Type::Vector(..) => common,
                    other => Type::Vector(other.scalar()?, cn),
                },
            };
            if result.lanes() != cn || result.element()?.size() != ce.size() {
                self.error(cond.span, format!("vector condition type '{}' and result type '{result}' do not have the same number of elements and element size", c.ty));
                return None;
            }
            let (a, b) = (self.operand_for(a, &result), self.operand_for(b, &result));
            return Some(expr(
                ExprKind::Select {
                    cond: Box::new(c),
                    then_expr: Box::new(a),
                    else_expr: Box::new(b),
                },
                result,
                span,
            ));
        }
        if !c.ty.is_c_scalar() {
            self.error(
                cond.span,
                format!(
                    "used type '{}' where arithmetic or pointer type is required",
                    c.ty
                ),
            );
            return None;
        }
        // Arithmetic operands go through the usual arithmetic conversions even when their
        // types are equal (C99 6.5.15p5): `c ? (char)1 : (char)2` is an `int`.
        let ty = if a.ty.is_arithmetic() && b.ty.is_arithmetic() {
            self.common_type(&a, &b, span)?
        } else if a.ty == b.ty {
            a.ty.clone()
        } else if b.ty.is_pointer() && is_null_constant(&a) {
            // `c ? NULL : local_ptr`: the null side takes the other side's type.
            b.ty.clone()
        } else if a.ty.is_pointer() {
            a.ty.clone()
        } else if b.ty.is_pointer() {
            b.ty.clone()
        } else {
            self.error(
                span,
                format!("incompatible operand types ('{}' and '{}')", a.ty, b.ty),
            );
            return None;
        };
        let (a, b) = if ty.is_arithmetic() {
            (self.operand_for(a, &ty), self.operand_for(b, &ty))
        } else if ty.is_pointer() {
            let a_span = a.span;
            let b_span = b.span;
            (
                self.assignment_conversion(a, &ty, a_span)?,
                self.assignment_conversion(b, &ty, b_span)?,
            )
        } else {
            (a, b)
        };
        Some(self.folded(expr(
            ExprKind::Conditional {
                cond: Box::new(c),
                then_expr: Box::new(a),
                else_expr: Box::new(b),
            },
            ty,
            span,
        )))
    }

    /// A call: a function of the program or a builtin.
    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let ast::ExprKind::Ident(name) = &callee.kind else {
            self.error(
                callee.span,
                "called object is not a function (OpenCL C has no function pointers)",
            );
            return None;
        };
        match self.lookup(name).cloned() {
            Some(Symbol::Function(id)) => {
                let values = args.iter().map(|a| self.expr(a)).collect::<Vec<_>>();
                let values = values.into_iter().collect::<Option<Vec<_>>>()?;
                let f = &self.program.functions[id.0 as usize];
                let params: Vec<QualType> = f.locals[..f.params as usize]
                    .iter()
                    .map(|l| l.ty.clone())
                    .collect();
                let ret = f.ret.clone();
                if params.len() != values.len() {
                    self.error(
                        span,
                        format!(
                            "function '{name}' takes {} arguments, {} given",
                            params.len(),
                            values.len()
                        ),
                    );
                    return None;
                }
                let mut converted = Vec::with_capacity(values.len());
                for (v, p) in values.into_iter().zip(&params) {
                    let s = v.span;
                    converted.push(self.assignment_conversion(v, &p.ty, s)?);
                }
                let state = self.func();
                if !state.callees.contains(&id) {
                    state.callees.push(id);
                }
                Some(expr(
                    ExprKind::Call {
                        func: id,
                        args: converted,
                    },
                    ret,
                    span,
                ))
            }
            Some(_) => {
                self.error(
                    callee.span,
                    format!("called object '{name}' is not a function"),
                );
                None
            }
            None => self.builtin_call(name, callee.span, args, span),
        }
    }
}

fn merge(a: Qualifiers, b: Qualifiers) -> Qualifiers {
    Qualifiers {
        is_const: a.is_const || b.is_const,
        is_volatile: a.is_volatile || b.is_volatile,
        is_restrict: b.is_restrict,
    }
}

/// Where the parts of a vector come from (see [`Analyzer::vector_parts`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum VectorForm {
    /// `(float4)(a, b.xy, c)`.
    Literal,
    /// `float4 v = {a, b.xy};`.
    Initializer,
}
