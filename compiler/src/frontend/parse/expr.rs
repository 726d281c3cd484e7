//! Expressions (C99 6.5) with OpenCL's vector literals and `vec_step`.

use super::{Class, Kw, PResult, Parser};
use crate::frontend::ast::*;
use crate::frontend::source::Span;
use crate::frontend::token::Punct;

impl Parser<'_> {
    /// ```text
    /// expression: assignment-expression ( , assignment-expression )*
    /// ```
    pub(super) fn expression(&mut self) -> PResult<Expr> {
        let (mut lhs, mut height) = self.measure(|p| p.assignment_expression())?;
        while self.at(Punct::Comma) {
            let op_span = self.site();
            self.advance();
            let (rhs, rhs_height) = self.measure(|p| p.assignment_expression())?;
            height = height.max(rhs_height) + 1;
            self.grow(height, op_span)?;
            lhs = binary(BinaryOp::Comma, op_span, lhs, rhs);
        }
        Ok(lhs)
    }

    /// Semantic analysis checks that the left side is a modifiable lvalue; the grammar's
    /// `unary-expression` there is parsed as a conditional-expression, as clang does, so
    /// that `a ? b : c = d` gets that message rather than a syntax error.
    ///
    /// ```text
    /// assignment-expression: conditional-expression
    ///                      | unary-expression assignment-operator assignment-expression
    /// assignment-operator: = | *= | /= | %= | += | -= | <<= | >>= | &= | ^= | |=
    /// ```
    pub(super) fn assignment_expression(&mut self) -> PResult<Expr> {
        let lhs = self.conditional_expression()?;
        match self.assignment_operator() {
            Some(op) => self.assignment_rest(lhs, op),
            None => Ok(lhs),
        }
    }

    #[inline(never)]
    fn assignment_rest(&mut self, lhs: Expr, op: AssignOp) -> PResult<Expr> {
        let op_span = self.site();
        self.advance();
        let rhs = self.nested(|p| p.assignment_expression())?;
        let span = lhs.span.to(rhs.span);
        Ok(Expr {
            kind: ExprKind::Assign {
                op,
                op_span,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        })
    }

    fn assignment_operator(&self) -> Option<AssignOp> {
        let Class::Punct(p) = self.peek() else {
            return None;
        };
        Some(match p {
            Punct::Assign => AssignOp::Assign,
            Punct::StarAssign => AssignOp::Mul,
            Punct::SlashAssign => AssignOp::Div,
            Punct::PercentAssign => AssignOp::Rem,
            Punct::PlusAssign => AssignOp::Add,
            Punct::MinusAssign => AssignOp::Sub,
            Punct::ShlAssign => AssignOp::Shl,
            Punct::ShrAssign => AssignOp::Shr,
            Punct::AmpAssign => AssignOp::BitAnd,
            Punct::CaretAssign => AssignOp::BitXor,
            Punct::PipeAssign => AssignOp::BitOr,
            _ => return None,
        })
    }

    /// ```text
    /// constant-expression: conditional-expression
    /// ```
    pub(super) fn constant_expression(&mut self) -> PResult<Expr> {
        self.conditional_expression()
    }

    /// ```text
    /// conditional-expression: logical-OR-expression ( ? expression : conditional-expression )?
    /// ```
    fn conditional_expression(&mut self) -> PResult<Expr> {
        let cond = self.binary_expression(1)?;
        if !self.at(Punct::Question) {
            return Ok(cond);
        }
        let question = self.site();
        self.advance();
        self.nested(|p| p.conditional_rest(cond, question))
    }

    #[inline(never)]
    fn conditional_rest(&mut self, cond: Expr, question: Span) -> PResult<Expr> {
        let then_expr = self.expression()?;
        if !self.eat(Punct::Colon) {
            let err = self.error_here("expected ':'");
            self.note(question, "to match this '?'");
            return Err(err);
        }
        let else_expr = self.conditional_expression()?;
        let span = cond.span.to(else_expr.span);
        Ok(Expr {
            kind: ExprKind::Conditional {
                cond: Box::new(cond),
                then_expr: Box::new(then_expr),
                else_expr: Box::new(else_expr),
            },
            span,
        })
    }

    /// The binary operators, by precedence climbing: `min_precedence` 1 parses a
    /// logical-OR-expression; each level's right operand is parsed one level up, which makes
    /// every operator left-associative.
    ///
    /// ```text
    /// logical-OR-expression:     logical-AND-expression ( || logical-AND-expression )*
    /// logical-AND-expression:    inclusive-OR-expression ( && inclusive-OR-expression )*
    /// inclusive-OR-expression:   exclusive-OR-expression ( | exclusive-OR-expression )*
    /// exclusive-OR-expression:   AND-expression ( ^ AND-expression )*
    /// AND-expression:            equality-expression ( & equality-expression )*
    /// equality-expression:       relational-expression ( ( == | != ) relational-expression )*
    /// relational-expression:     shift-expression ( ( < | > | <= | >= ) shift-expression )*
    /// shift-expression:          additive-expression ( ( << | >> ) additive-expression )*
    /// additive-expression:       multiplicative-expression ( ( + | - ) multiplicative-expression )*
    /// multiplicative-expression: cast-expression ( ( * | / | % ) cast-expression )*
    /// ```
    fn binary_expression(&mut self, min_precedence: u8) -> PResult<Expr> {
        let (lhs, height) = self.measure(|p| p.cast_expression())?;
        match self.binary_operator() {
            Some((precedence, _)) if precedence >= min_precedence => {
                self.binary_rest(lhs, height, min_precedence)
            }
            _ => Ok(lhs),
        }
    }

    /// The operators after the first operand of [`Parser::binary_expression`].
    #[inline(never)]
    fn binary_rest(&mut self, mut lhs: Expr, mut height: u32, min_precedence: u8) -> PResult<Expr> {
        while let Some((precedence, op)) = self.binary_operator()
            && precedence >= min_precedence
        {
            let op_span = self.site();
            self.advance();
            let (rhs, rhs_height) = self.measure(|p| p.binary_expression(precedence + 1))?;
            height = height.max(rhs_height) + 1;
            self.grow(height, op_span)?;
            lhs = binary(op, op_span, lhs, rhs);
        }
        Ok(lhs)
    }

    /// The binary operator at the current token and its precedence (higher binds tighter).
    fn binary_operator(&self) -> Option<(u8, BinaryOp)> {
        let Class::Punct(p) = self.peek() else {
            return None;
        };
        Some(match p {
            Punct::PipePipe => (1, BinaryOp::LogicalOr),
            Punct::AmpAmp => (2, BinaryOp::LogicalAnd),
            Punct::Pipe => (3, BinaryOp::BitOr),
            Punct::Caret => (4, BinaryOp::BitXor),
            Punct::Amp => (5, BinaryOp::BitAnd),
            Punct::EqEq => (6, BinaryOp::Eq),
            Punct::Ne => (6, BinaryOp::Ne),
            Punct::Lt => (7, BinaryOp::Lt),
            Punct::Gt => (7, BinaryOp::Gt),
            Punct::Le => (7, BinaryOp::Le),
            Punct::Ge => (7, BinaryOp::Ge),
            Punct::Shl => (8, BinaryOp::Shl),
            Punct::Shr => (8, BinaryOp::Shr),
            Punct::Plus => (9, BinaryOp::Add),
            Punct::Minus => (9, BinaryOp::Sub),
            Punct::Star => (10, BinaryOp::Mul),
            Punct::Slash => (10, BinaryOp::Div),
            Punct::Percent => (10, BinaryOp::Rem),
            _ => return None,
        })
    }

    /// A cast whose operand is a parenthesized list is kept as [`ExprKind::ParenList`]:
    /// `(float4)(a, b, c, d)` is a vector literal, `(int)(a, b)` a cast of a comma
    /// expression; semantic analysis tells them apart. Postfix operators after the list
    /// apply to the cast when the type is a vector type name (as in clang:
    /// `(float4)(x).y` takes `.y` of the vector) and to the parenthesized expression
    /// otherwise (C: `(int)(p)->n` casts `p->n`).
    ///
    /// ```text
    /// cast-expression: unary-expression
    ///                | ( type-name ) cast-expression
    ///                | ( type-name ) ( argument-expression-list ) postfix-suffix*
    ///                | ( type-name ) { initializer-list ,? } postfix-suffix*
    /// ```
    fn cast_expression(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            if p.at(Punct::LParen) && p.starts_type_name(p.pos + 1) {
                p.cast_with_type()
            } else {
                p.unary_expression()
            }
        })
    }

    /// A cast expression that starts with `( type-name )`. Kept out of line (as are the
    /// other rare branches of the recursive path) so that each nesting level takes little
    /// stack.
    #[inline(never)]
    fn cast_with_type(&mut self) -> PResult<Expr> {
        let start = self.site();
        let open = self.advance();
        let ty = Box::new(self.type_name()?);
        self.expect_closing(Punct::RParen, open)?;
        if self.at(Punct::LBrace) {
            let init = Box::new(self.braced_initializer()?);
            let span = start.to(init.span);
            let literal = Expr {
                kind: ExprKind::CompoundLiteral { ty, init },
                span,
            };
            return self.postfix_suffixes(literal);
        }
        // `(int)({ ... })` casts a statement expression; any other `(` starts a list.
        if self.at(Punct::LParen)
            && !self.starts_type_name(self.pos + 1)
            && self.peek_at(1) != Class::Punct(Punct::LBrace)
        {
            let list_start = self.site();
            let list_open = self.advance();
            let (items, commas) = self.argument_expression_list()?;
            if items.is_empty() {
                return Err(self.error_here("expected expression"));
            }
            self.expect_closing(Punct::RParen, list_open)?;
            let list_span = list_start.to(self.prev_site());
            let vector = matches!(ty.declarator.kind, DeclaratorKind::Abstract)
                && self.specifiers_name_vector(&ty.specifiers);
            if !vector && self.at_postfix_operator() {
                self.grow(items.len() as u32 + 1, list_span)?;
                let mut items = items.into_iter();
                let mut inner = items.next().ok_or(super::Failed)?;
                for (item, comma) in items.zip(commas) {
                    inner = binary(BinaryOp::Comma, comma, inner, item);
                }
                let paren = Expr {
                    kind: ExprKind::Paren(Box::new(inner)),
                    span: list_span,
                };
                let operand = Box::new(self.postfix_suffixes(paren)?);
                let span = start.to(operand.span);
                return Ok(Expr {
                    kind: ExprKind::Cast { ty, operand },
                    span,
                });
            }
            let operand = Box::new(Expr {
                kind: ExprKind::ParenList(items),
                span: list_span,
            });
            let cast = Expr {
                kind: ExprKind::Cast { ty, operand },
                span: start.to(list_span),
            };
            return if vector {
                self.postfix_suffixes(cast)
            } else {
                Ok(cast)
            };
        }
        let operand = Box::new(self.cast_expression()?);
        let span = start.to(operand.span);
        Ok(Expr {
            kind: ExprKind::Cast { ty, operand },
            span,
        })
    }

    fn at_postfix_operator(&self) -> bool {
        matches!(
            self.peek(),
            Class::Punct(
                Punct::LBracket
                    | Punct::LParen
                    | Punct::Dot
                    | Punct::Arrow
                    | Punct::PlusPlus
                    | Punct::MinusMinus
            )
        )
    }

    /// ```text
    /// unary-expression: postfix-expression
    ///                 | ++ unary-expression | -- unary-expression
    ///                 | unary-operator cast-expression
    ///                 | sizeof unary-expression | sizeof ( type-name )
    ///                 | vec_step unary-expression | vec_step ( type-name )
    /// unary-operator: & | * | + | - | ~ | !
    /// ```
    fn unary_expression(&mut self) -> PResult<Expr> {
        let start = self.site();
        let op = match self.peek() {
            Class::Punct(Punct::PlusPlus) => UnaryOp::PreIncrement,
            Class::Punct(Punct::MinusMinus) => UnaryOp::PreDecrement,
            Class::Punct(Punct::Amp) => UnaryOp::AddressOf,
            Class::Punct(Punct::Star) => UnaryOp::Deref,
            Class::Punct(Punct::Plus) => UnaryOp::Plus,
            Class::Punct(Punct::Minus) => UnaryOp::Minus,
            Class::Punct(Punct::Tilde) => UnaryOp::BitNot,
            Class::Punct(Punct::Bang) => UnaryOp::LogicalNot,
            Class::Kw(kw @ (Kw::Sizeof | Kw::VecStep)) => {
                return self.sizeof_expression(kw == Kw::Sizeof);
            }
            _ => return self.postfix_expression(),
        };
        self.advance();
        let operand = if matches!(op, UnaryOp::PreIncrement | UnaryOp::PreDecrement) {
            self.nested(|p| p.unary_expression())?
        } else {
            self.cast_expression()?
        };
        let span = start.to(operand.span);
        Ok(Expr {
            kind: ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
            span,
        })
    }

    /// `sizeof` or `vec_step` and its operand: a parenthesized type name, or a unary
    /// expression (which may be a compound literal, `sizeof (T){...}`).
    #[inline(never)]
    fn sizeof_expression(&mut self, is_sizeof: bool) -> PResult<Expr> {
        let start = self.site();
        self.advance();
        if self.at(Punct::LParen) && self.starts_type_name(self.pos + 1) {
            let ty_start = self.site();
            let open = self.advance();
            let ty = Box::new(self.type_name()?);
            self.expect_closing(Punct::RParen, open)?;
            if !self.at(Punct::LBrace) {
                let span = start.to(self.prev_site());
                let kind = if is_sizeof {
                    ExprKind::SizeofType(ty)
                } else {
                    ExprKind::VecStepType(ty)
                };
                return Ok(Expr { kind, span });
            }
            let init = Box::new(self.braced_initializer()?);
            let span = ty_start.to(init.span);
            let literal = self.postfix_suffixes(Expr {
                kind: ExprKind::CompoundLiteral { ty, init },
                span,
            })?;
            let span = start.to(literal.span);
            let kind = if is_sizeof {
                ExprKind::SizeofExpr(Box::new(literal))
            } else {
                ExprKind::VecStepExpr(Box::new(literal))
            };
            return Ok(Expr { kind, span });
        }
        let operand = Box::new(self.nested(|p| p.unary_expression())?);
        let span = start.to(operand.span);
        let kind = if is_sizeof {
            ExprKind::SizeofExpr(operand)
        } else {
            ExprKind::VecStepExpr(operand)
        };
        Ok(Expr { kind, span })
    }

    /// ```text
    /// postfix-expression: primary-expression postfix-suffix*
    /// postfix-suffix: [ expression ] | ( argument-expression-list? ) | . identifier
    ///               | -> identifier | ++ | --
    /// ```
    fn postfix_expression(&mut self) -> PResult<Expr> {
        let primary = self.primary_expression()?;
        self.postfix_suffixes(primary)
    }

    /// The postfix operators after `base`. They nest to the left without recursing, so
    /// their count is checked against [`super::MAX_HEIGHT`].
    #[inline(never)]
    fn postfix_suffixes(&mut self, base: Expr) -> PResult<Expr> {
        let mut e = base;
        let mut height = self.peak.saturating_sub(self.depth);
        loop {
            let op_span = self.site();
            let kind = match self.peek() {
                Class::Punct(Punct::LBracket) => {
                    let open = self.advance();
                    let (index, index_height) = self.measure(|p| p.expression())?;
                    self.expect_closing(Punct::RBracket, open)?;
                    height = height.max(index_height);
                    ExprKind::Index {
                        base: Box::new(e),
                        index: Box::new(index),
                    }
                }
                Class::Punct(Punct::LParen) => {
                    let open = self.advance();
                    let (args, args_height) = self.measure(|p| p.argument_expression_list())?;
                    self.expect_closing(Punct::RParen, open)?;
                    height = height.max(args_height);
                    ExprKind::Call {
                        callee: Box::new(e),
                        args: args.0,
                    }
                }
                Class::Punct(p @ (Punct::Dot | Punct::Arrow)) => {
                    self.advance();
                    if self.peek() != Class::Ident {
                        return Err(self.error_here("expected identifier"));
                    }
                    let member = self.ident();
                    ExprKind::Member {
                        base: Box::new(e),
                        member,
                        arrow: p == Punct::Arrow,
                    }
                }
                Class::Punct(Punct::PlusPlus) => {
                    self.advance();
                    ExprKind::PostIncrement(Box::new(e))
                }
                Class::Punct(Punct::MinusMinus) => {
                    self.advance();
                    ExprKind::PostDecrement(Box::new(e))
                }
                _ => return Ok(e),
            };
            height += 1;
            self.grow(height, op_span)?;
            let span = expr_start(&kind).to(self.prev_site());
            e = Expr { kind, span };
        }
    }

    /// The arguments of a call or a vector literal, without the parentheses, and the
    /// spans of the commas between them. Empty at a `)`.
    ///
    /// ```text
    /// argument-expression-list: assignment-expression ( , assignment-expression )*
    /// ```
    fn argument_expression_list(&mut self) -> PResult<(Vec<Expr>, Vec<Span>)> {
        let mut args = Vec::new();
        let mut commas = Vec::new();
        if self.at(Punct::RParen) {
            return Ok((args, commas));
        }
        loop {
            args.push(self.assignment_expression()?);
            if !self.at(Punct::Comma) {
                return Ok((args, commas));
            }
            commas.push(self.site());
            self.advance();
        }
    }

    /// ```text
    /// primary-expression: identifier | constant | string-literal+ | ( expression )
    /// constant: integer-constant | floating-constant | character-constant
    /// ```
    fn primary_expression(&mut self) -> PResult<Expr> {
        let t = self.tok(self.pos);
        let (text, span) = (t.text.clone(), t.site);
        let kind = match self.peek() {
            Class::Ident => {
                if self.type_name_info(&text).is_some() {
                    return Err(self.error_here(format!(
                        "unexpected type name '{text}': expected expression"
                    )));
                }
                ExprKind::Ident(text)
            }
            Class::Number if is_floating_spelling(&text) => ExprKind::FloatLiteral(text),
            Class::Number => ExprKind::IntLiteral(text),
            Class::Char => ExprKind::CharLiteral(text),
            Class::Str => {
                let mut pieces = Vec::new();
                while self.peek() == Class::Str {
                    let t = self.tok(self.pos);
                    pieces.push(StrPiece {
                        text: t.text.clone(),
                        span: t.site,
                    });
                    self.advance();
                }
                let span = span.to(self.prev_site());
                return Ok(Expr {
                    kind: ExprKind::StringLiteral(pieces),
                    span,
                });
            }
            Class::Punct(Punct::LParen) if self.peek_at(1) == Class::Punct(Punct::LBrace) => {
                return self.statement_expression();
            }
            Class::Punct(Punct::LParen) => {
                let open = self.advance();
                let inner = self.expression()?;
                self.expect_closing(Punct::RParen, open)?;
                let span = span.to(self.prev_site());
                return Ok(Expr {
                    kind: ExprKind::Paren(Box::new(inner)),
                    span,
                });
            }
            _ => return Err(self.error_here("expected expression")),
        };
        self.advance();
        Ok(Expr { kind, span })
    }
}

impl Parser<'_> {
    /// A GNU statement expression (clang accepts it in OpenCL C).
    ///
    /// ```text
    /// statement-expression: ( compound-statement )
    /// ```
    #[inline(never)]
    fn statement_expression(&mut self) -> PResult<Expr> {
        let start = self.site();
        let open = self.advance();
        let block = self.compound_statement()?;
        self.expect_closing(Punct::RParen, open)?;
        Ok(Expr {
            kind: ExprKind::StmtExpr(block),
            span: start.to(self.prev_site()),
        })
    }
}

fn binary(op: BinaryOp, op_span: Span, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span.to(rhs.span);
    Expr {
        kind: ExprKind::Binary {
            op,
            op_span,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span,
    }
}

/// Where a postfix expression starts: where its base does.
fn expr_start(kind: &ExprKind) -> Span {
    match kind {
        ExprKind::Index { base, .. } | ExprKind::Member { base, .. } => base.span,
        ExprKind::Call { callee, .. } => callee.span,
        ExprKind::PostIncrement(e) | ExprKind::PostDecrement(e) => e.span,
        _ => Span::default(),
    }
}

/// Whether a preprocessing number is a floating constant: hexadecimal with a `.` or a
/// binary exponent (`0x1.8p3`), decimal with a `.` or an exponent (`1e5`, `.5f`).
/// Anything else is an integer constant, or invalid, which semantic analysis reports.
fn is_floating_spelling(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() > 1 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        text.contains(['.', 'p', 'P'])
    } else {
        text.contains(['.', 'e', 'E'])
    }
}
