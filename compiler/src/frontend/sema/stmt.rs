//! Statements: blocks, control flow, labels and `goto`, `switch` with its cases, `return`.

use std::sync::Arc;

use super::super::ast::{self, ForInit, LabelKind, StmtKind as Ast};
use super::super::source::Span;
use super::super::tir::{self, Block, Constant, Expr, Stmt, StmtKind};
use super::super::types::Type;
use super::constant::{fold, signed_value};
use super::{Analyzer, SwitchState};

impl Analyzer<'_> {
    /// The body of a function (its parameters are already in scope).
    pub(super) fn function_body(&mut self, body: &ast::Block) -> Block {
        self.func().depth += 1;
        // Sized once (see `block`).
        let mut out = Vec::with_capacity(body.items.len());
        for s in &body.items {
            self.statement(s, &mut out);
        }
        self.func().depth -= 1;
        out
    }

    fn block(&mut self, block: &ast::Block) -> Block {
        self.push_scope();
        self.func().depth += 1;
        // Most statements become one: sized once, not doubled past it (a large kernel's
        // typed tree is mostly its blocks).
        let mut out = Vec::with_capacity(block.items.len());
        for s in &block.items {
            self.statement(s, &mut out);
        }
        self.func().depth -= 1;
        self.pop_scope();
        out
    }

    /// A GNU statement expression `({ ... })`: a block of its own scope whose last
    /// statement, if it is an expression statement, gives the value (else the type is
    /// `void`), as clang has it.
    pub(super) fn statement_expression(&mut self, block: &ast::Block, span: Span) -> Option<Expr> {
        if self.current.is_none() {
            self.error(span, "statement expression not allowed at file scope");
            return None;
        }
        self.push_scope();
        self.func().depth += 1;
        let mut body = Vec::new();
        let mut value = Ok(None);
        if let Some((last, rest)) = block.items.split_last() {
            for s in rest {
                self.statement(s, &mut body);
            }
            match &last.kind {
                Ast::Expr(e) if last.pragmas.is_empty() => {
                    value = self.expr(e).map(|v| Some(Box::new(v))).ok_or(());
                }
                // `({ ... done: r; })`: clang looks through the labels to the expression.
                Ast::Labeled {
                    labels,
                    body: inner,
                } if matches!(inner.kind, Ast::Expr(_)) => {
                    let placed = ast::Stmt {
                        kind: Ast::Labeled {
                            labels: labels.clone(),
                            body: Box::new(ast::Stmt {
                                kind: Ast::Null,
                                pragmas: Vec::new(),
                                span: inner.span,
                            }),
                        },
                        pragmas: last.pragmas.clone(),
                        span: last.span,
                    };
                    self.statement(&placed, &mut body);
                    if let Ast::Expr(e) = &inner.kind {
                        value = self.expr(e).map(|v| Some(Box::new(v))).ok_or(());
                    }
                }
                _ => self.statement(last, &mut body),
            }
        }
        self.func().depth -= 1;
        self.pop_scope();
        let value = value.ok()?;
        let ty = value.as_ref().map_or(Type::Void, |v| v.ty.clone());
        Some(Expr {
            kind: tir::ExprKind::StmtExpr { body, value },
            ty,
            span,
        })
    }

    /// A statement that is a scope of its own (a loop body, a branch).
    fn sub_statement(&mut self, s: &ast::Stmt) -> Block {
        self.push_scope();
        let mut out = Vec::new();
        self.statement(s, &mut out);
        self.pop_scope();
        out
    }

    /// A condition: a scalar (arithmetic or pointer) value (6.8.4, 6.8.5).
    fn condition(&mut self, e: &ast::Expr) -> Option<Expr> {
        let value = self.expr(e)?;
        if !value.ty.is_c_scalar() {
            self.error(
                e.span,
                format!(
                    "statement requires expression of scalar type ('{}' invalid)",
                    value.ty
                ),
            );
            return None;
        }
        Some(value)
    }

    fn statement(&mut self, s: &ast::Stmt, out: &mut Block) {
        let span = s.span;
        let unroll = s.pragmas.iter().find_map(|p| unroll_count(&p.text));
        let kind = match &s.kind {
            Ast::Compound(b) => StmtKind::Block(self.block(b)),
            Ast::Decl(d) => {
                self.local_declaration(d, out);
                return;
            }
            Ast::Expr(e) => match self.expr(e) {
                Some(v) => StmtKind::Expr(v),
                None => return,
            },
            Ast::Null => return,
            Ast::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = self.condition(cond);
                let then_branch = self.sub_statement(then_branch);
                let else_branch = else_branch
                    .as_ref()
                    .map(|e| self.sub_statement(e))
                    .unwrap_or_default();
                let Some(cond) = c else { return };
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                }
            }
            Ast::While { cond, body } => {
                let c = self.condition(cond);
                let body = self.loop_body(body);
                let Some(cond) = c else { return };
                StmtKind::Loop {
                    cond: Some(cond),
                    step: None,
                    body,
                    test_after: false,
                    unroll,
                }
            }
            Ast::DoWhile { body, cond } => {
                let body = self.loop_body(body);
                let Some(cond) = self.condition(cond) else {
                    return;
                };
                StmtKind::Loop {
                    cond: Some(cond),
                    step: None,
                    body,
                    test_after: true,
                    unroll,
                }
            }
            Ast::For {
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let mut block = Vec::new();
                match &**init {
                    ForInit::None => {}
                    ForInit::Expr(e) => {
                        if let Some(v) = self.expr(e) {
                            block.push(Stmt {
                                kind: StmtKind::Expr(v),
                                span: e.span,
                            });
                        }
                    }
                    ForInit::Decl(d) => self.local_declaration(d, &mut block),
                }
                let cond = cond.as_ref().map(|c| self.condition(c));
                let step = step.as_ref().map(|e| self.expr(e));
                let body = self.loop_body(body);
                self.pop_scope();
                if matches!(cond, Some(None)) || matches!(step, Some(None)) {
                    return;
                }
                block.push(Stmt {
                    kind: StmtKind::Loop {
                        cond: cond.flatten(),
                        step: step.flatten(),
                        body,
                        test_after: false,
                        unroll,
                    },
                    span,
                });
                StmtKind::Block(block)
            }
            Ast::Switch { cond, body } => {
                let Some(value) = self.expr(cond) else { return };
                let Some(s) = value.ty.scalar().filter(|s| s.is_integer()) else {
                    self.error(
                        cond.span,
                        format!(
                            "statement requires expression of integer type ('{}' invalid)",
                            value.ty
                        ),
                    );
                    return;
                };
                let value = self.convert_scalar(value, s.promoted());
                self.func().switches.push(SwitchState {
                    value_type: s.promoted(),
                    cases: Vec::new(),
                    values: Default::default(),
                    default: None,
                });
                let body = self.sub_statement(body);
                let state = self.func().switches.pop().expect("pushed above");
                StmtKind::Switch {
                    value,
                    cases: state.cases,
                    default: state.default,
                    body,
                }
            }
            Ast::Goto(label) => {
                let id = self.named_label(&label.name, label.span, false);
                StmtKind::Goto(id)
            }
            Ast::Continue => {
                if self.func().loop_depth == 0 {
                    self.error(span, "'continue' statement not in loop statement");
                    return;
                }
                StmtKind::Continue
            }
            Ast::Break => {
                if self.func().loop_depth == 0 && self.func().switches.is_empty() {
                    self.error(span, "'break' statement not in loop or switch statement");
                    return;
                }
                StmtKind::Break
            }
            Ast::Return(value) => {
                let ret = self.func().ret.clone();
                match (value, ret.is_void()) {
                    (None, true) => StmtKind::Return(None),
                    (None, false) => {
                        self.error(span, "non-void function should return a value");
                        return;
                    }
                    (Some(e), true) => {
                        self.error(e.span, "void function should not return a value");
                        return;
                    }
                    (Some(e), false) => {
                        let Some(v) = self.expr(e) else { return };
                        let Some(v) = self.assignment_conversion(v, &ret, e.span) else {
                            return;
                        };
                        StmtKind::Return(Some(v))
                    }
                }
            }
            Ast::Labeled { labels, body } => {
                for label in labels {
                    if let Some(id) = self.label(label) {
                        out.push(Stmt {
                            kind: StmtKind::Label(id),
                            span: label.span,
                        });
                    }
                }
                self.statement(body, out);
                return;
            }
        };
        out.push(Stmt { kind, span });
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> Block {
        self.func().loop_depth += 1;
        // `break` inside a loop inside a switch leaves the loop: hide the switch.
        let switches = std::mem::take(&mut self.func().switches);
        let out = self.sub_statement(body);
        self.func().switches = switches;
        self.func().loop_depth -= 1;
        out
    }

    /// A label in front of a statement: a name, `case V:` or `default:`.
    fn label(&mut self, label: &ast::Label) -> Option<tir::LabelId> {
        match &label.kind {
            LabelKind::Named(name) => Some(self.named_label(&name.name, name.span, true)),
            LabelKind::Case(e) => {
                let Some(switch_type) = self.func().switches.last().map(|s| s.value_type) else {
                    self.error(label.span, "'case' statement not in switch statement");
                    return None;
                };
                let value = self.expr(e)?;
                let value = self.convert_scalar(value, switch_type);
                let Some(Constant::Int(v)) = fold(&value) else {
                    self.error(e.span, "expression is not an integer constant expression");
                    return None;
                };
                let v = signed_value(v[0], switch_type) as i64;
                if !self.func().switches.last_mut()?.values.insert(v) {
                    self.error(e.span, format!("duplicate case value '{v}'"));
                    return None;
                }
                let id = self.new_label();
                self.func().switches.last_mut()?.cases.push((v, id));
                Some(id)
            }
            LabelKind::Default => {
                let Some(current) = self.func().switches.last().map(|s| s.default) else {
                    self.error(label.span, "'default' statement not in switch statement");
                    return None;
                };
                if current.is_some() {
                    self.error(label.span, "multiple default labels in one switch");
                    return None;
                }
                let id = self.new_label();
                self.func().switches.last_mut()?.default = Some(id);
                Some(id)
            }
        }
    }

    /// The id of a named label, created on first mention (a `goto` may come first).
    fn named_label(&mut self, name: &Arc<str>, span: Span, placing: bool) -> tir::LabelId {
        let existing = self.func().labels.get(name).cloned();
        match existing {
            Some((id, placed, used)) => {
                if placing {
                    if placed.is_some() {
                        self.error(span, format!("redefinition of label '{name}'"));
                    }
                    self.func()
                        .labels
                        .insert(Arc::clone(name), (id, Some(span), used));
                }
                id
            }
            None => {
                let id = self.new_label();
                self.func()
                    .labels
                    .insert(Arc::clone(name), (id, placing.then_some(span), span));
                id
            }
        }
    }
}

/// `#pragma unroll` (fully) or `#pragma unroll N`.
fn unroll_count(text: &str) -> Option<u32> {
    let mut words = text.split_whitespace();
    if words.next()? != "unroll" {
        return None;
    }
    Some(words.next().and_then(|n| n.parse().ok()).unwrap_or(0))
}
