//! Statements (C99 6.8).

use super::{Class, Failed, Kw, PResult, Parser};
use crate::frontend::ast::*;
use crate::frontend::token::Punct;

impl Parser<'_> {
    /// A block in a scope of its own. Each item that fails to parse is skipped (to its `;`
    /// or its closing `}`) and the block goes on, so every bad statement is reported. Must
    /// be called at the `{`.
    ///
    /// ```text
    /// compound-statement: { block-item* }
    /// ```
    #[inline(never)]
    pub(super) fn compound_statement(&mut self) -> PResult<Block> {
        let start = self.site();
        let open = self.expect(Punct::LBrace, "expected '{'")?;
        self.push_scope();
        let mut items = Vec::new();
        while !self.at(Punct::RBrace) && self.peek() != Class::Eof {
            let before = self.pos;
            let mark = self.mark();
            match self.block_item() {
                Ok(item) => items.push(item),
                Err(Failed) => self.recover(mark),
            }
            if self.pos == before && !self.at(Punct::RBrace) {
                self.advance();
            }
        }
        self.pop_scope();
        self.expect_closing(Punct::RBrace, open)?;
        // The growth's slack would live as long as the tree (up to half of a large block).
        items.shrink_to_fit();
        Ok(Block {
            items,
            span: start.to(self.prev_site()),
        })
    }

    /// ```text
    /// block-item: pragma* ( declaration | statement )
    ///           | pragma+            (at the end of a block)
    /// ```
    fn block_item(&mut self) -> PResult<Stmt> {
        self.nested(|p| p.block_item_inner())
    }

    fn block_item_inner(&mut self) -> PResult<Stmt> {
        let pragmas = self.pragmas();
        if let (Some(first), Some(last)) = (pragmas.first(), pragmas.last())
            && self.at(Punct::RBrace)
        {
            let span = first.span.to(last.span);
            return Ok(Stmt {
                kind: StmtKind::Null,
                pragmas,
                span,
            });
        }
        if self.starts_declaration(self.pos) {
            let declaration = self.declaration()?;
            let span = declaration.span;
            return Ok(Stmt {
                kind: StmtKind::Decl(declaration),
                pragmas,
                span,
            });
        }
        let mut stmt = self.statement_proper()?;
        if !pragmas.is_empty() {
            stmt.pragmas.splice(0..0, pragmas);
        }
        Ok(stmt)
    }

    /// A statement, with the `#pragma` lines before it.
    ///
    /// ```text
    /// statement: pragma* ( labeled-statement | compound-statement | expression-statement
    ///          | selection-statement | iteration-statement | jump-statement )
    /// ```
    fn statement(&mut self) -> PResult<Stmt> {
        self.nested(|p| p.statement_with_pragmas())
    }

    fn statement_with_pragmas(&mut self) -> PResult<Stmt> {
        let pragmas = self.pragmas();
        let mut stmt = self.statement_proper()?;
        if !pragmas.is_empty() {
            stmt.pragmas.splice(0..0, pragmas);
        }
        Ok(stmt)
    }

    fn statement_proper(&mut self) -> PResult<Stmt> {
        let start = self.site();
        // One result slot for every kind of statement (and each kind parsed out of line),
        // so that a nesting level of statements takes little stack.
        let kind = match self.peek() {
            Class::Punct(Punct::LBrace) => self.compound_statement().map(StmtKind::Compound),
            Class::Punct(Punct::Semi) => {
                self.advance();
                Ok(StmtKind::Null)
            }
            Class::Kw(Kw::If) => self.if_statement(),
            Class::Kw(Kw::Switch) => self.switch_statement(),
            Class::Kw(Kw::While) => self.while_statement(),
            Class::Kw(Kw::Do) => self.do_statement(),
            Class::Kw(Kw::For) => self.for_statement(),
            Class::Kw(Kw::Goto | Kw::Continue | Kw::Break | Kw::Return) => self.jump_statement(),
            Class::Kw(Kw::Case | Kw::Default) => return self.labeled_statement(),
            Class::Ident if self.peek_at(1) == Class::Punct(Punct::Colon) => {
                return self.labeled_statement();
            }
            Class::Punct(Punct::RBrace) | Class::Eof => Err(self.error_here("expected statement")),
            _ => self.expression_statement(),
        };
        Ok(Stmt {
            kind: kind?,
            pragmas: Vec::new(),
            span: start.to(self.prev_site()),
        })
    }

    /// ```text
    /// expression-statement: expression ;
    /// ```
    #[inline(never)]
    fn expression_statement(&mut self) -> PResult<StmtKind> {
        let e = self.expression()?;
        self.expect_semi("expected ';' after expression")?;
        Ok(StmtKind::Expr(e))
    }

    /// The labels before a statement, gathered into one node.
    ///
    /// ```text
    /// labeled-statement: label+ statement
    /// label: identifier : | case constant-expression : | default :
    /// ```
    #[inline(never)]
    fn labeled_statement(&mut self) -> PResult<Stmt> {
        let start = self.site();
        let mut labels = Vec::new();
        loop {
            let label_start = self.site();
            let kind = match self.peek() {
                Class::Kw(Kw::Case) => {
                    self.advance();
                    let value = self.constant_expression()?;
                    self.expect(Punct::Colon, "expected ':' after 'case'")?;
                    LabelKind::Case(value)
                }
                Class::Kw(Kw::Default) => {
                    self.advance();
                    self.expect(Punct::Colon, "expected ':' after 'default'")?;
                    LabelKind::Default
                }
                Class::Ident if self.peek_at(1) == Class::Punct(Punct::Colon) => {
                    let name = self.ident();
                    self.advance();
                    LabelKind::Named(name)
                }
                _ => break,
            };
            labels.push(Label {
                kind,
                span: label_start.to(self.prev_site()),
            });
        }
        if self.at(Punct::RBrace) {
            return Err(self.error_here("label at end of compound statement: expected statement"));
        }
        let body = self.statement()?;
        let span = start.to(body.span);
        Ok(Stmt {
            kind: StmtKind::Labeled {
                labels,
                body: Box::new(body),
            },
            pragmas: Vec::new(),
            span,
        })
    }

    /// `( expression )` after `if`, `switch` or `while`.
    fn paren_condition(&mut self, keyword: &str) -> PResult<Expr> {
        if !self.at(Punct::LParen) {
            return Err(self.error_here(format!("expected '(' after '{keyword}'")));
        }
        let open = self.advance();
        let cond = self.expression()?;
        self.expect_closing(Punct::RParen, open)?;
        Ok(cond)
    }

    /// ```text
    /// selection-statement: if ( expression ) statement ( else statement )?
    /// ```
    #[inline(never)]
    fn if_statement(&mut self) -> PResult<StmtKind> {
        self.advance();
        let cond = self.paren_condition("if")?;
        let then_branch = Box::new(self.statement()?);
        let else_branch = if self.eat_kw(Kw::Else) {
            Some(Box::new(self.statement()?))
        } else {
            None
        };
        Ok(StmtKind::If {
            cond,
            then_branch,
            else_branch,
        })
    }

    /// ```text
    /// selection-statement: switch ( expression ) statement
    /// ```
    #[inline(never)]
    fn switch_statement(&mut self) -> PResult<StmtKind> {
        self.advance();
        let cond = self.paren_condition("switch")?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::Switch { cond, body })
    }

    /// ```text
    /// iteration-statement: while ( expression ) statement
    /// ```
    #[inline(never)]
    fn while_statement(&mut self) -> PResult<StmtKind> {
        self.advance();
        let cond = self.paren_condition("while")?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::While { cond, body })
    }

    /// ```text
    /// iteration-statement: do statement while ( expression ) ;
    /// ```
    #[inline(never)]
    fn do_statement(&mut self) -> PResult<StmtKind> {
        let do_site = self.site();
        self.advance();
        let body = Box::new(self.statement()?);
        if !self.eat_kw(Kw::While) {
            let err = self.error_here("expected 'while' in do/while loop");
            self.note(do_site, "to match this 'do'");
            return Err(err);
        }
        let cond = self.paren_condition("while")?;
        self.expect_semi("expected ';' after do/while statement")?;
        Ok(StmtKind::DoWhile { body, cond })
    }

    /// The header's declaration is in a scope of its own, around the body.
    ///
    /// ```text
    /// iteration-statement: for ( ( expression? ; | declaration ) expression? ; expression? ) statement
    /// ```
    #[inline(never)]
    fn for_statement(&mut self) -> PResult<StmtKind> {
        self.advance();
        let open = self.expect(Punct::LParen, "expected '(' after 'for'")?;
        self.mark_for_header();
        self.push_scope();
        let result = self.for_rest(open);
        self.pop_scope();
        result
    }

    fn for_rest(&mut self, open: usize) -> PResult<StmtKind> {
        const MISSING: &str = "expected ';' in 'for' statement specifier";
        let init = if self.eat(Punct::Semi) {
            ForInit::None
        } else if self.starts_declaration(self.pos) {
            ForInit::Decl(self.declaration()?)
        } else {
            let e = self.expression()?;
            self.expect_semi(MISSING)?;
            ForInit::Expr(e)
        };
        let cond = if self.at(Punct::Semi) {
            None
        } else {
            Some(self.expression()?)
        };
        self.expect_semi(MISSING)?;
        let step = if self.at(Punct::RParen) {
            None
        } else {
            Some(self.expression()?)
        };
        self.expect_closing(Punct::RParen, open)?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::For {
            init: Box::new(init),
            cond: cond.map(Box::new),
            step: step.map(Box::new),
            body,
        })
    }

    /// ```text
    /// jump-statement: goto identifier ; | continue ; | break ; | return expression? ;
    /// ```
    #[inline(never)]
    fn jump_statement(&mut self) -> PResult<StmtKind> {
        let kind = match self.peek() {
            Class::Kw(Kw::Goto) => {
                self.advance();
                if self.peek() != Class::Ident {
                    return Err(self.error_here("expected identifier"));
                }
                let label = self.ident();
                self.expect_semi("expected ';' after goto statement")?;
                return Ok(StmtKind::Goto(label));
            }
            Class::Kw(Kw::Continue) => {
                self.advance();
                self.expect_semi("expected ';' after continue statement")?;
                StmtKind::Continue
            }
            Class::Kw(Kw::Break) => {
                self.advance();
                self.expect_semi("expected ';' after break statement")?;
                StmtKind::Break
            }
            _ => {
                self.advance();
                let value = if self.at(Punct::Semi) {
                    None
                } else {
                    Some(self.expression()?)
                };
                self.expect_semi("expected ';' after return statement")?;
                StmtKind::Return(value)
            }
        };
        Ok(kind)
    }
}
