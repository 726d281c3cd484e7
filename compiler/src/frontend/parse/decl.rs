//! Declarations (C99 6.7, 6.9): specifiers, declarators, struct/union/enum, attributes,
//! initializers, type names and function definitions.

use std::sync::Arc;

use super::{Class, Failed, Kw, Name, PResult, Parser};
use crate::frontend::ast::*;
use crate::frontend::source::Span;
use crate::frontend::token::Punct;

/// Where declaration specifiers are parsed; decides what an unknown identifier at their
/// start means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SpecContext {
    FileScope,
    Block,
    Param,
    Member,
    TypeName,
}

/// Whether a declarator must, may or must not have a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DeclMode {
    /// Declarations: `int x`.
    Concrete,
    /// Type names: `int *[4]`.
    Abstract,
    /// Parameters: `int x` or `int *`.
    Either,
}

impl Parser<'_> {
    /// ```text
    /// external-declaration: function-definition | declaration | pragma
    /// function-definition: declaration-specifiers declarator attribute-specifier* compound-statement
    /// ```
    pub(super) fn external_declaration(&mut self) -> PResult<Option<ExternalDecl>> {
        match self.peek() {
            Class::Pragma => return Ok(Some(ExternalDecl::Pragma(self.pragma()))),
            // An empty declaration: C99 has none, but compilers accept a stray `;`.
            Class::Punct(Punct::Semi) => {
                self.advance();
                return Ok(None);
            }
            Class::Punct(Punct::RBrace) => {
                let err = self.error_here("extraneous closing brace ('}')");
                self.advance();
                return Err(err);
            }
            _ => {}
        }
        let start = self.site();
        let specifiers = self.declaration_specifiers(SpecContext::FileScope)?;
        if self.at(Punct::Semi) {
            self.advance();
            let span = start.to(self.prev_site());
            return Ok(Some(ExternalDecl::Declaration(Declaration {
                specifiers,
                declarators: Vec::new(),
                span,
            })));
        }
        if specifiers.items.is_empty()
            && !matches!(
                self.peek(),
                Class::Ident | Class::Punct(Punct::Star | Punct::LParen)
            )
        {
            return Err(self.error_here("expected identifier or '('"));
        }
        let mut declarator = self.declarator(DeclMode::Concrete)?;
        declarator.attributes.extend(self.attribute_specifiers()?);
        let is_typedef = has_storage(&specifiers, StorageClass::Typedef);
        if self.at(Punct::LBrace) && !is_typedef && declarator.function_params().is_some() {
            return self
                .function_definition(specifiers, declarator, start)
                .map(Some);
        }
        let declaration = self.init_declarator_list(
            specifiers,
            declarator,
            start,
            "expected ';' after top level declarator",
        )?;
        Ok(Some(ExternalDecl::Declaration(declaration)))
    }

    /// The body of a function definition, with its parameters in scope.
    fn function_definition(
        &mut self,
        specifiers: DeclSpecifiers,
        declarator: Declarator,
        start: Span,
    ) -> PResult<ExternalDecl> {
        if let Some((name, _)) = declarator.name() {
            let name = name.clone();
            self.declare(&name, Name::Ordinary);
        }
        self.push_scope();
        let names: Vec<Arc<str>> = declarator
            .function_params()
            .unwrap_or_default()
            .iter()
            .filter_map(|p| p.declarator.name().map(|(n, _)| n.clone()))
            .collect();
        for name in &names {
            self.declare(name, Name::Ordinary);
        }
        let body = self.compound_statement();
        self.pop_scope();
        let body = body?;
        let span = start.to(body.span);
        Ok(ExternalDecl::Function(FunctionDef {
            specifiers,
            declarator,
            body,
            span,
        }))
    }

    /// A declaration in a block or a `for` header.
    ///
    /// ```text
    /// declaration: declaration-specifiers init-declarator-list? ;
    /// ```
    pub(super) fn declaration(&mut self) -> PResult<Declaration> {
        let start = self.site();
        let specifiers = self.declaration_specifiers(SpecContext::Block)?;
        if self.eat(Punct::Semi) {
            let span = start.to(self.prev_site());
            return Ok(Declaration {
                specifiers,
                declarators: Vec::new(),
                span,
            });
        }
        let mut declarator = self.declarator(DeclMode::Concrete)?;
        declarator.attributes.extend(self.attribute_specifiers()?);
        if self.at(Punct::LBrace) && declarator.function_params().is_some() {
            return Err(self.error_here("function definition is not allowed here"));
        }
        self.init_declarator_list(
            specifiers,
            declarator,
            start,
            "expected ';' at end of declaration",
        )
    }

    /// The rest of a declaration once its first declarator (and the attributes after it)
    /// is parsed. An initializer that fails to parse is left out and the declaration kept,
    /// so its names stay declared.
    ///
    /// ```text
    /// init-declarator-list: init-declarator ( , init-declarator )*
    /// init-declarator: declarator attribute-specifier* ( = initializer )?
    /// ```
    fn init_declarator_list(
        &mut self,
        specifiers: DeclSpecifiers,
        first: Declarator,
        start: Span,
        missing_semi: &str,
    ) -> PResult<Declaration> {
        let is_typedef = has_storage(&specifiers, StorageClass::Typedef);
        let mut declarators = Vec::new();
        let mut declarator = first;
        loop {
            self.declare_declarator(&specifiers, &declarator, is_typedef);
            let mut init = None;
            if self.eat(Punct::Assign) {
                let mark = self.mark();
                match self.initializer() {
                    Ok(i) => init = Some(i),
                    Err(Failed) => {
                        let span = declarator.span;
                        declarators.push(InitDeclarator {
                            declarator,
                            init: None,
                            span,
                        });
                        self.recover(mark);
                        let span = start.to(self.prev_site());
                        return Ok(Declaration {
                            specifiers,
                            declarators,
                            span,
                        });
                    }
                }
            }
            let span = init.as_ref().map_or(declarator.span, |i: &Initializer| {
                declarator.span.to(i.span)
            });
            declarators.push(InitDeclarator {
                declarator,
                init,
                span,
            });
            if !self.eat(Punct::Comma) {
                break;
            }
            declarator = self.declarator(DeclMode::Concrete)?;
            declarator.attributes.extend(self.attribute_specifiers()?);
        }
        self.expect_semi(missing_semi)?;
        let span = start.to(self.prev_site());
        Ok(Declaration {
            specifiers,
            declarators,
            span,
        })
    }

    /// Records a declared name in the current scope: a typedef name, or an ordinary
    /// identifier that hides one.
    fn declare_declarator(
        &mut self,
        specifiers: &DeclSpecifiers,
        declarator: &Declarator,
        is_typedef: bool,
    ) {
        let Some((name, _)) = declarator.name() else {
            return;
        };
        let name = name.clone();
        let meaning = if is_typedef {
            Name::Typedef {
                vector: self.names_vector_type(specifiers, declarator),
            }
        } else {
            Name::Ordinary
        };
        self.declare(&name, meaning);
    }

    /// Whether a typedef declares a vector type: its type is a vector type name (predefined
    /// or a vector typedef) with no pointer, array or function around it, or it carries
    /// clang's `ext_vector_type` or GCC's `vector_size` attribute.
    fn names_vector_type(&self, specifiers: &DeclSpecifiers, declarator: &Declarator) -> bool {
        let is_vector_attribute = |a: &Attribute| {
            matches!(
                a.name.name.trim_matches('_'),
                "ext_vector_type" | "vector_size"
            )
        };
        let attributes = specifiers
            .items
            .iter()
            .filter_map(|s| match &s.kind {
                DeclSpecifierKind::Attribute(a) => Some(a),
                _ => None,
            })
            .chain(declarator.attributes.iter());
        if attributes.into_iter().any(is_vector_attribute) {
            return true;
        }
        matches!(declarator.kind, DeclaratorKind::Ident(_))
            && self.specifiers_name_vector(specifiers)
    }

    /// Whether the only type specifier of `specifiers` is a vector type name.
    pub(super) fn specifiers_name_vector(&self, specifiers: &DeclSpecifiers) -> bool {
        let mut types = specifiers.items.iter().filter_map(|s| match &s.kind {
            DeclSpecifierKind::Type(t) => Some(t),
            _ => None,
        });
        match (types.next(), types.next()) {
            (Some(TypeSpecifier::TypeName(name)), None) => self.type_name_info(name) == Some(true),
            _ => false,
        }
    }

    /// ```text
    /// typeof-specifier: ( __typeof__ | __typeof ) ( ( type-name | expression ) )
    /// ```
    #[inline(never)]
    fn typeof_specifier(&mut self) -> PResult<Typeof> {
        self.advance();
        let open = self.expect(Punct::LParen, "expected '(' after '__typeof__'")?;
        let operand = if self.starts_type_name(self.pos) {
            Typeof::Type(Box::new(self.type_name()?))
        } else {
            Typeof::Expr(Box::new(self.expression()?))
        };
        self.expect_closing(Punct::RParen, open)?;
        Ok(operand)
    }

    /// ```text
    /// declaration-specifiers:
    ///     ( storage-class-specifier | type-specifier | type-qualifier
    ///     | function-specifier | attribute-specifier )*
    /// storage-class-specifier: typedef | extern | static | auto | register
    /// type-specifier: void | char | short | int | long | float | double | half | bool
    ///     | signed | unsigned | struct-or-union-specifier | enum-specifier | typedef-name
    /// type-qualifier: const | volatile | restrict | address-space-qualifier | access-qualifier
    /// address-space-qualifier: __global | __local | __constant | __private  (also without __)
    /// access-qualifier: __read_only | __write_only | __read_write  (also without __)
    /// function-specifier: __kernel | kernel | inline
    /// ```
    ///
    /// Also the specifier-qualifier-list of members and type names: storage classes and
    /// function specifiers are accepted there too and left for semantic analysis to
    /// reject. A typedef name counts only before any other type specifier (`long T` declares
    /// `T`).
    pub(super) fn declaration_specifiers(&mut self, ctx: SpecContext) -> PResult<DeclSpecifiers> {
        let start = self.site();
        let mut items = Vec::new();
        let mut seen_type = false;
        loop {
            let span = self.site();
            let kind = match self.peek() {
                Class::Kw(kw) => {
                    if let Some(kind) = simple_specifier(kw) {
                        self.advance();
                        if matches!(kind, DeclSpecifierKind::Type(_)) {
                            seen_type = true;
                        }
                        kind
                    } else {
                        match kw {
                            Kw::Struct | Kw::Union => {
                                seen_type = true;
                                let s = self.struct_or_union_specifier()?;
                                let span = s.span;
                                items.push(DeclSpecifier {
                                    kind: DeclSpecifierKind::Type(TypeSpecifier::Struct(s)),
                                    span,
                                });
                                continue;
                            }
                            Kw::Enum => {
                                seen_type = true;
                                let e = self.enum_specifier()?;
                                let span = e.span;
                                items.push(DeclSpecifier {
                                    kind: DeclSpecifierKind::Type(TypeSpecifier::Enum(e)),
                                    span,
                                });
                                continue;
                            }
                            Kw::Typeof => {
                                seen_type = true;
                                let t = self.typeof_specifier()?;
                                items.push(DeclSpecifier {
                                    kind: DeclSpecifierKind::Type(TypeSpecifier::Typeof(t)),
                                    span: span.to(self.prev_site()),
                                });
                                continue;
                            }
                            Kw::Attribute => {
                                for a in self.attribute_specifier()? {
                                    let span = a.span;
                                    items.push(DeclSpecifier {
                                        kind: DeclSpecifierKind::Attribute(a),
                                        span,
                                    });
                                }
                                continue;
                            }
                            _ => break,
                        }
                    }
                }
                Class::Ident if !seen_type => {
                    let name = self.tok(self.pos).text.clone();
                    if self.type_name_info(&name).is_none() {
                        let unknown = match ctx {
                            SpecContext::Param | SpecContext::TypeName => true,
                            SpecContext::Block => self.peek_at(1) == Class::Ident,
                            SpecContext::FileScope | SpecContext::Member => {
                                matches!(self.peek_at(1), Class::Ident | Class::Punct(Punct::Star))
                            }
                        };
                        if !unknown {
                            break;
                        }
                        // Reported here and parsed on as a type, so one typo gives one error.
                        self.diags
                            .error(span, format!("unknown type name '{name}'"));
                    }
                    self.advance();
                    seen_type = true;
                    DeclSpecifierKind::Type(TypeSpecifier::TypeName(name))
                }
                _ => break,
            };
            items.push(DeclSpecifier { kind, span });
        }
        let span = match items.last() {
            Some(last) => start.to(last.span),
            None => Span {
                end: start.start,
                ..start
            },
        };
        Ok(DeclSpecifiers { items, span })
    }

    /// ```text
    /// struct-or-union-specifier:
    ///     struct-or-union attribute-specifier* identifier? { struct-declaration* } attribute-specifier*
    ///     struct-or-union attribute-specifier* identifier
    /// struct-or-union: struct | union
    /// ```
    fn struct_or_union_specifier(&mut self) -> PResult<StructSpecifier> {
        self.nested(|p| p.struct_or_union_specifier_inner())
    }

    fn struct_or_union_specifier_inner(&mut self) -> PResult<StructSpecifier> {
        let start = self.site();
        let kind = if self.at_kw(Kw::Union) {
            StructKind::Union
        } else {
            StructKind::Struct
        };
        self.advance();
        let mut attributes = self.attribute_specifiers()?;
        let tag = if self.peek() == Class::Ident {
            Some(self.ident())
        } else {
            None
        };
        let mut body = None;
        if self.at(Punct::LBrace) {
            let open = self.advance();
            let mut items = Vec::new();
            while !self.at(Punct::RBrace) && self.peek() != Class::Eof {
                let before = self.pos;
                match self.peek() {
                    Class::Pragma => items.push(StructItem::Pragma(self.pragma())),
                    // An extra `;` in a struct: accepted, as by GCC and clang.
                    Class::Punct(Punct::Semi) => {
                        self.advance();
                    }
                    _ => {
                        let mark = self.mark();
                        match self.struct_declaration() {
                            Ok(field) => items.push(StructItem::Field(field)),
                            Err(Failed) => self.recover(mark),
                        }
                    }
                }
                if self.pos == before && !self.at(Punct::RBrace) {
                    self.advance();
                }
            }
            self.expect_closing(Punct::RBrace, open)?;
            body = Some(items);
            attributes.extend(self.attribute_specifiers()?);
        } else if tag.is_none() {
            let what = if kind == StructKind::Union {
                "union"
            } else {
                "struct"
            };
            return Err(self.error_here(format!(
                "declaration of anonymous {what} must be a definition"
            )));
        }
        let span = start.to(self.prev_site());
        Ok(StructSpecifier {
            kind,
            attributes,
            tag,
            body,
            span,
        })
    }

    /// ```text
    /// struct-declaration: specifier-qualifier-list struct-declarator-list? ;
    /// struct-declarator-list: struct-declarator ( , struct-declarator )*
    /// struct-declarator: declarator attribute-specifier* | declarator? : constant-expression attribute-specifier*
    /// ```
    fn struct_declaration(&mut self) -> PResult<FieldDecl> {
        let start = self.site();
        let specifiers = self.declaration_specifiers(SpecContext::Member)?;
        if specifiers.items.is_empty() {
            return Err(self.error_here("type name requires a specifier or qualifier"));
        }
        let mut declarators = Vec::new();
        if !self.at(Punct::Semi) {
            loop {
                let d_start = self.site();
                let mut declarator = if self.at(Punct::Colon) {
                    Declarator {
                        kind: DeclaratorKind::Abstract,
                        attributes: Vec::new(),
                        span: Span {
                            end: d_start.start,
                            ..d_start
                        },
                    }
                } else {
                    self.declarator(DeclMode::Concrete)?
                };
                declarator.attributes.extend(self.attribute_specifiers()?);
                let mut bit_width = None;
                if self.eat(Punct::Colon) {
                    bit_width = Some(self.constant_expression()?);
                    declarator.attributes.extend(self.attribute_specifiers()?);
                }
                let span = d_start.to(self.prev_site());
                declarators.push(FieldDeclarator {
                    declarator,
                    bit_width,
                    span,
                });
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        self.expect_semi("expected ';' at end of declaration list")?;
        let span = start.to(self.prev_site());
        Ok(FieldDecl {
            specifiers,
            declarators,
            span,
        })
    }

    /// ```text
    /// enum-specifier:
    ///     enum attribute-specifier* identifier? { enumerator-list ,? } attribute-specifier*
    ///     enum attribute-specifier* identifier
    /// enumerator-list: enumerator ( , enumerator )*
    /// enumerator: enumeration-constant attribute-specifier* ( = constant-expression )?
    /// ```
    fn enum_specifier(&mut self) -> PResult<EnumSpecifier> {
        let start = self.site();
        self.advance();
        let mut attributes = self.attribute_specifiers()?;
        let tag = if self.peek() == Class::Ident {
            Some(self.ident())
        } else {
            None
        };
        let mut enumerators = None;
        if self.at(Punct::LBrace) {
            let open = self.advance();
            let mut list = Vec::new();
            while !self.at(Punct::RBrace) {
                if self.peek() != Class::Ident {
                    return Err(self.error_here("expected identifier"));
                }
                let name = self.ident();
                let attrs = self.attribute_specifiers()?;
                let value = if self.eat(Punct::Assign) {
                    Some(self.constant_expression()?)
                } else {
                    None
                };
                self.declare(&name.name, Name::Ordinary);
                let span = name.span.to(self.prev_site());
                list.push(Enumerator {
                    name,
                    attributes: attrs,
                    value,
                    span,
                });
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect_closing(Punct::RBrace, open)?;
            enumerators = Some(list);
            attributes.extend(self.attribute_specifiers()?);
        } else if tag.is_none() {
            return Err(self.error_here("expected identifier or '{'"));
        }
        let span = start.to(self.prev_site());
        Ok(EnumSpecifier {
            attributes,
            tag,
            enumerators,
            span,
        })
    }

    /// Zero or more attribute specifiers, their attributes in order.
    pub(super) fn attribute_specifiers(&mut self) -> PResult<Vec<Attribute>> {
        let mut attributes = Vec::new();
        while self.at_kw(Kw::Attribute) {
            attributes.extend(self.attribute_specifier()?);
        }
        Ok(attributes)
    }

    /// ```text
    /// attribute-specifier: __attribute__ ( ( attribute-list ) )
    /// attribute-list: attribute? ( , attribute? )*
    /// attribute: attribute-name ( ( attribute-argument-list? ) )?
    /// attribute-name: identifier | keyword
    /// attribute-argument-list: attribute-argument ( , attribute-argument )*
    /// attribute-argument: type-name | assignment-expression
    /// ```
    fn attribute_specifier(&mut self) -> PResult<Vec<Attribute>> {
        self.advance();
        let outer = self.expect(Punct::LParen, "expected '(' after 'attribute'")?;
        let inner = self.expect(Punct::LParen, "expected '(' after '('")?;
        let mut attributes = Vec::new();
        loop {
            match self.peek() {
                Class::Ident | Class::Kw(_) => attributes.push(self.attribute()?),
                Class::Punct(Punct::Comma) => {}
                Class::Punct(Punct::RParen) => break,
                _ => return Err(self.error_here("expected identifier")),
            }
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_closing(Punct::RParen, inner)?;
        self.expect_closing(Punct::RParen, outer)?;
        Ok(attributes)
    }

    fn attribute(&mut self) -> PResult<Attribute> {
        let first = self.pos;
        let name = self.ident();
        let mut args = None;
        if self.at(Punct::LParen) {
            let open = self.advance();
            let mut list = Vec::new();
            if !self.at(Punct::RParen) {
                loop {
                    let arg = if self.starts_type_name(self.pos) {
                        AttributeArg::Type(self.type_name()?)
                    } else {
                        AttributeArg::Expr(self.assignment_expression()?)
                    };
                    list.push(arg);
                    if !self.eat(Punct::Comma) {
                        break;
                    }
                }
            }
            self.expect_closing(Punct::RParen, open)?;
            args = Some(list);
        }
        let mut text = String::new();
        for i in first..self.pos {
            let t = self.tok(i);
            if i > first && t.space_before {
                text.push(' ');
            }
            text.push_str(&t.text);
        }
        let span = name.span.to(self.prev_site());
        Ok(Attribute {
            name,
            args,
            text,
            span,
        })
    }

    /// ```text
    /// declarator: pointer* direct-declarator
    /// abstract-declarator: pointer* direct-abstract-declarator?
    /// pointer: * ( type-qualifier | attribute-specifier )*
    /// ```
    pub(super) fn declarator(&mut self, mode: DeclMode) -> PResult<Declarator> {
        self.nested(|p| p.declarator_inner(mode))
    }

    fn declarator_inner(&mut self, mode: DeclMode) -> PResult<Declarator> {
        if !self.at(Punct::Star) {
            return self.direct_declarator(mode);
        }
        let star = self.site();
        self.advance();
        let mut qualifiers = Vec::new();
        loop {
            let span = self.site();
            let kind = match self.peek() {
                Class::Kw(Kw::Attribute) => {
                    for a in self.attribute_specifier()? {
                        let span = a.span;
                        qualifiers.push(DeclSpecifier {
                            kind: DeclSpecifierKind::Attribute(a),
                            span,
                        });
                    }
                    continue;
                }
                Class::Kw(kw) => match simple_specifier(kw) {
                    Some(kind @ DeclSpecifierKind::Qualifier(_)) => kind,
                    _ => break,
                },
                _ => break,
            };
            self.advance();
            qualifiers.push(DeclSpecifier { kind, span });
        }
        let inner = self.declarator(mode)?;
        let span = star.to(self.prev_site()).to(inner.span);
        Ok(Declarator {
            kind: DeclaratorKind::Pointer {
                qualifiers,
                inner: Box::new(inner),
            },
            attributes: Vec::new(),
            span,
        })
    }

    /// ```text
    /// direct-declarator:
    ///     identifier
    ///     ( attribute-specifier* declarator )
    ///     direct-declarator [ static? type-qualifier* static? assignment-expression? ]
    ///     direct-declarator ( parameter-type-list? )
    /// direct-abstract-declarator:
    ///     ( attribute-specifier* abstract-declarator )
    ///     direct-abstract-declarator? [ static? type-qualifier* static? assignment-expression? ]
    ///     direct-abstract-declarator? ( parameter-type-list? )
    /// ```
    fn direct_declarator(&mut self, mode: DeclMode) -> PResult<Declarator> {
        let start = self.site();
        let d = match self.peek() {
            Class::Ident if mode != DeclMode::Abstract => {
                let name = self.ident();
                Declarator {
                    kind: DeclaratorKind::Ident(name.name),
                    attributes: Vec::new(),
                    span: name.span,
                }
            }
            Class::Punct(Punct::LParen) if self.paren_starts_declarator(mode) => {
                let open = self.advance();
                let attributes = self.attribute_specifiers()?;
                let mut inner = self.declarator(mode)?;
                self.expect_closing(Punct::RParen, open)?;
                inner.attributes.splice(0..0, attributes);
                inner
            }
            _ if mode == DeclMode::Concrete => {
                return Err(self.error_here("expected identifier or '('"));
            }
            _ => Declarator {
                kind: DeclaratorKind::Abstract,
                attributes: Vec::new(),
                span: Span {
                    end: start.start,
                    ..start
                },
            },
        };
        // Each suffix wraps the declarator once more; they count as nesting levels (from
        // here to the end of the declarator) so that the tree's height stays bounded.
        let depth = self.depth;
        let result = self.declarator_suffixes(d, start);
        self.depth = depth;
        result
    }

    fn declarator_suffixes(&mut self, mut d: Declarator, start: Span) -> PResult<Declarator> {
        loop {
            if matches!(self.peek(), Class::Punct(Punct::LBracket | Punct::LParen)) {
                self.enter()?;
            }
            if self.at(Punct::LBracket) {
                let open = self.advance();
                let mut qualifiers = Vec::new();
                let mut is_static = false;
                loop {
                    let span = self.site();
                    match self.peek() {
                        Class::Kw(Kw::Static) => is_static = true,
                        Class::Kw(kw) => match simple_specifier(kw) {
                            Some(kind @ DeclSpecifierKind::Qualifier(_)) => {
                                qualifiers.push(DeclSpecifier { kind, span });
                            }
                            _ => break,
                        },
                        _ => break,
                    }
                    self.advance();
                }
                let size = if self.at(Punct::RBracket) {
                    None
                } else {
                    Some(Box::new(self.assignment_expression()?))
                };
                self.expect_closing(Punct::RBracket, open)?;
                let span = d.span.to(start).to(self.prev_site());
                d = Declarator {
                    kind: DeclaratorKind::Array {
                        inner: Box::new(d),
                        qualifiers,
                        is_static,
                        size,
                    },
                    attributes: Vec::new(),
                    span,
                };
            } else if self.at(Punct::LParen) {
                let (params, variadic) = self.parameter_type_list()?;
                let span = d.span.to(start).to(self.prev_site());
                d = Declarator {
                    kind: DeclaratorKind::Function {
                        inner: Box::new(d),
                        params,
                        variadic,
                    },
                    attributes: Vec::new(),
                    span,
                };
            } else {
                return Ok(d);
            }
        }
    }

    /// At a `(` in a declarator: whether it opens a nested declarator (`(*p)`) rather than
    /// the parameters of an abstract function declarator (`int (int)`). In a parameter, a
    /// typedef name after `(` is a parameter's type (C99 6.7.5.3p11).
    fn paren_starts_declarator(&self, mode: DeclMode) -> bool {
        match self.peek_at(1) {
            Class::Punct(Punct::Star | Punct::LParen | Punct::LBracket)
            | Class::Kw(Kw::Attribute) => true,
            Class::Ident => match mode {
                DeclMode::Concrete => true,
                DeclMode::Either => !self.is_type_name_ident(self.pos + 1),
                DeclMode::Abstract => false,
            },
            _ => mode == DeclMode::Concrete,
        }
    }

    /// The parentheses of a function declarator, in a scope of their own (prototype scope:
    /// a parameter named like a typedef hides it for the parameters after it).
    ///
    /// ```text
    /// parameter-type-list: parameter-list ( , ... )? | ...
    /// parameter-list: parameter-declaration ( , parameter-declaration )*
    /// ```
    fn parameter_type_list(&mut self) -> PResult<(Vec<ParamDecl>, bool)> {
        let open = self.advance();
        self.push_scope();
        let result = self.parameter_list_inner(open);
        self.pop_scope();
        result
    }

    fn parameter_list_inner(&mut self, open: usize) -> PResult<(Vec<ParamDecl>, bool)> {
        let mut params = Vec::new();
        let mut variadic = false;
        if !self.at(Punct::RParen) {
            loop {
                if self.eat(Punct::Ellipsis) {
                    variadic = true;
                    break;
                }
                params.push(self.parameter_declaration()?);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        self.expect_closing(Punct::RParen, open)?;
        Ok((params, variadic))
    }

    /// ```text
    /// parameter-declaration: declaration-specifiers ( declarator | abstract-declarator? ) attribute-specifier*
    /// ```
    fn parameter_declaration(&mut self) -> PResult<ParamDecl> {
        let start = self.site();
        let specifiers = self.declaration_specifiers(SpecContext::Param)?;
        if specifiers.items.is_empty() {
            return Err(self.error_here("expected parameter declarator"));
        }
        let mut declarator = self.declarator(DeclMode::Either)?;
        declarator.attributes.extend(self.attribute_specifiers()?);
        if let Some((name, _)) = declarator.name() {
            let name = name.clone();
            self.declare(&name, Name::Ordinary);
        }
        let span = start.to(self.prev_site());
        Ok(ParamDecl {
            specifiers,
            declarator,
            span,
        })
    }

    /// ```text
    /// type-name: specifier-qualifier-list abstract-declarator?
    /// ```
    pub(super) fn type_name(&mut self) -> PResult<TypeName> {
        self.nested(|p| p.type_name_inner())
    }

    fn type_name_inner(&mut self) -> PResult<TypeName> {
        let start = self.site();
        let specifiers = self.declaration_specifiers(SpecContext::TypeName)?;
        if specifiers.items.is_empty() {
            return Err(self.error_here("expected a type"));
        }
        let declarator = self.declarator(DeclMode::Abstract)?;
        let span = start.to(self.prev_site());
        Ok(TypeName {
            specifiers,
            declarator,
            span,
        })
    }

    /// ```text
    /// initializer: assignment-expression | { initializer-list? ,? }
    /// ```
    pub(super) fn initializer(&mut self) -> PResult<Initializer> {
        if self.at(Punct::LBrace) {
            return self.nested(|p| p.braced_initializer());
        }
        let e = self.assignment_expression()?;
        let span = e.span;
        Ok(Initializer {
            kind: InitializerKind::Expr(e),
            span,
        })
    }

    /// ```text
    /// initializer-list: designation? initializer ( , designation? initializer )*
    /// designation: designator+ =
    /// designator: [ constant-expression ] | . identifier
    /// ```
    pub(super) fn braced_initializer(&mut self) -> PResult<Initializer> {
        let start = self.site();
        let open = self.advance();
        let mut items = Vec::new();
        while !self.at(Punct::RBrace) {
            let item_start = self.site();
            let mut designators = Vec::new();
            loop {
                if self.at(Punct::LBracket) {
                    let open = self.advance();
                    let index = self.constant_expression()?;
                    self.expect_closing(Punct::RBracket, open)?;
                    designators.push(Designator::Index(index));
                } else if self.at(Punct::Dot) {
                    self.advance();
                    if self.peek() != Class::Ident {
                        return Err(
                            self.error_here("expected a field designator, such as '.field = 4'")
                        );
                    }
                    designators.push(Designator::Field(self.ident()));
                } else {
                    break;
                }
            }
            if !designators.is_empty() {
                self.expect(Punct::Assign, "expected '=' or another designator")?;
            }
            let value = self.initializer()?;
            let span = item_start.to(value.span);
            items.push(InitItem {
                designators,
                value,
                span,
            });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_closing(Punct::RBrace, open)?;
        let span = start.to(self.prev_site());
        Ok(Initializer {
            kind: InitializerKind::List(items),
            span,
        })
    }
}

fn has_storage(specifiers: &DeclSpecifiers, class: StorageClass) -> bool {
    specifiers
        .items
        .iter()
        .any(|s| s.kind == DeclSpecifierKind::Storage(class))
}

/// The specifier a keyword is by itself (everything but struct, union, enum, attributes).
fn simple_specifier(kw: Kw) -> Option<DeclSpecifierKind> {
    use DeclSpecifierKind as S;
    Some(match kw {
        Kw::Typedef => S::Storage(StorageClass::Typedef),
        Kw::Extern => S::Storage(StorageClass::Extern),
        Kw::Static => S::Storage(StorageClass::Static),
        Kw::Auto => S::Storage(StorageClass::Auto),
        Kw::Register => S::Storage(StorageClass::Register),
        Kw::Const => S::Qualifier(Qualifier::Const),
        Kw::Volatile => S::Qualifier(Qualifier::Volatile),
        Kw::Restrict => S::Qualifier(Qualifier::Restrict),
        Kw::Global => S::Qualifier(Qualifier::AddressSpace(AddressSpace::Global)),
        Kw::Local => S::Qualifier(Qualifier::AddressSpace(AddressSpace::Local)),
        Kw::Constant => S::Qualifier(Qualifier::AddressSpace(AddressSpace::Constant)),
        Kw::Private => S::Qualifier(Qualifier::AddressSpace(AddressSpace::Private)),
        Kw::ReadOnly => S::Qualifier(Qualifier::Access(AccessQualifier::ReadOnly)),
        Kw::WriteOnly => S::Qualifier(Qualifier::Access(AccessQualifier::WriteOnly)),
        Kw::ReadWrite => S::Qualifier(Qualifier::Access(AccessQualifier::ReadWrite)),
        Kw::Kernel => S::Function(FunctionSpecifier::Kernel),
        Kw::Inline => S::Function(FunctionSpecifier::Inline),
        Kw::Void => S::Type(TypeSpecifier::Void),
        Kw::Bool => S::Type(TypeSpecifier::Bool),
        Kw::Char => S::Type(TypeSpecifier::Char),
        Kw::Short => S::Type(TypeSpecifier::Short),
        Kw::Int => S::Type(TypeSpecifier::Int),
        Kw::Long => S::Type(TypeSpecifier::Long),
        Kw::Float => S::Type(TypeSpecifier::Float),
        Kw::Double => S::Type(TypeSpecifier::Double),
        Kw::Half => S::Type(TypeSpecifier::Half),
        Kw::Signed => S::Type(TypeSpecifier::Signed),
        Kw::Unsigned => S::Type(TypeSpecifier::Unsigned),
        _ => return None,
    })
}
