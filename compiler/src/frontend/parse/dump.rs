//! A stable text form of the syntax tree, for golden tests and debugging.
//!
//! One node per line, indented two spaces per level, S-expression style: `(head atoms...`
//! then the children on the following lines, and the closing parentheses at the end of the
//! last line. Spans are left out. Keywords are printed in their canonical spelling
//! (`global`, `kernel`, `bool`), identifiers and literals as written, and the texts of
//! pragmas and attributes quoted (with Rust's escapes), as they may hold anything.
//!
//! Declarators print in the tree's inside-out shape: `int *a[4]` is
//! `(pointer (array (ident a) (int 4)))`, read "pointer to T, then array of 4 of that, is
//! the type of a".

use crate::frontend::ast::*;

/// The tree as indented text, one node per line.
pub fn dump(unit: &TranslationUnit) -> String {
    let mut w = Writer {
        out: String::new(),
        depth: 0,
    };
    w.open("translation-unit");
    for item in &unit.items {
        match item {
            ExternalDecl::Function(f) => w.function(f),
            ExternalDecl::Declaration(d) => w.declaration(d),
            ExternalDecl::Pragma(p) => w.pragma(p),
        }
    }
    w.close();
    w.out.push('\n');
    w.out
}

struct Writer {
    out: String,
    depth: usize,
}

impl Writer {
    /// Starts a node on a line of its own.
    fn open(&mut self, head: &str) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push('(');
        self.out.push_str(head);
        self.depth += 1;
    }

    fn close(&mut self) {
        self.out.push(')');
        self.depth -= 1;
    }

    fn leaf(&mut self, head: &str) {
        self.open(head);
        self.close();
    }

    fn pragma(&mut self, p: &Pragma) {
        self.leaf(&format!("pragma {:?}", &*p.text));
    }

    fn function(&mut self, f: &FunctionDef) {
        self.open("function-definition");
        self.specifiers(&f.specifiers);
        self.declarator(&f.declarator);
        self.block(&f.body);
        self.close();
    }

    fn declaration(&mut self, d: &Declaration) {
        self.open("declaration");
        self.specifiers(&d.specifiers);
        for i in &d.declarators {
            match &i.init {
                Some(init) => {
                    self.open("init-declarator");
                    self.declarator(&i.declarator);
                    self.initializer(init);
                    self.close();
                }
                None => self.declarator(&i.declarator),
            }
        }
        self.close();
    }

    /// The keyword specifiers as atoms on the node's line; struct, enum and attribute
    /// specifiers as children.
    fn specifiers(&mut self, s: &DeclSpecifiers) {
        let mut head = String::from("specifiers");
        for item in &s.items {
            if let Some(word) = specifier_word(&item.kind) {
                head.push(' ');
                head.push_str(&word);
            }
        }
        self.open(&head);
        for item in &s.items {
            match &item.kind {
                DeclSpecifierKind::Type(TypeSpecifier::Struct(st)) => self.struct_specifier(st),
                DeclSpecifierKind::Type(TypeSpecifier::Enum(e)) => self.enum_specifier(e),
                DeclSpecifierKind::Type(TypeSpecifier::Typeof(t)) => {
                    self.open("typeof");
                    match t {
                        Typeof::Expr(e) => self.expr(e),
                        Typeof::Type(t) => self.type_name(t),
                    }
                    self.close();
                }
                DeclSpecifierKind::Attribute(a) => self.attribute(a),
                _ => {}
            }
        }
        self.close();
    }

    fn struct_specifier(&mut self, s: &StructSpecifier) {
        let mut head = String::from(if s.kind == StructKind::Union {
            "union"
        } else {
            "struct"
        });
        if let Some(tag) = &s.tag {
            head.push(' ');
            head.push_str(&tag.name);
        }
        if s.body.is_some() {
            head.push_str(" body");
        }
        self.open(&head);
        for a in &s.attributes {
            self.attribute(a);
        }
        for item in s.body.iter().flatten() {
            match item {
                StructItem::Pragma(p) => self.pragma(p),
                StructItem::Field(f) => {
                    self.open("field");
                    self.specifiers(&f.specifiers);
                    for d in &f.declarators {
                        match &d.bit_width {
                            Some(width) => {
                                self.open("bit-field");
                                self.declarator(&d.declarator);
                                self.expr(width);
                                self.close();
                            }
                            None => self.declarator(&d.declarator),
                        }
                    }
                    self.close();
                }
            }
        }
        self.close();
    }

    fn enum_specifier(&mut self, e: &EnumSpecifier) {
        let mut head = String::from("enum");
        if let Some(tag) = &e.tag {
            head.push(' ');
            head.push_str(&tag.name);
        }
        if e.enumerators.is_some() {
            head.push_str(" body");
        }
        self.open(&head);
        for a in &e.attributes {
            self.attribute(a);
        }
        for en in e.enumerators.iter().flatten() {
            self.open(&format!("enumerator {}", en.name.name));
            for a in &en.attributes {
                self.attribute(a);
            }
            if let Some(v) = &en.value {
                self.expr(v);
            }
            self.close();
        }
        self.close();
    }

    fn attribute(&mut self, a: &Attribute) {
        self.open(&format!("attribute {:?}", a.text));
        for arg in a.args.iter().flatten() {
            match arg {
                AttributeArg::Expr(e) => self.expr(e),
                AttributeArg::Type(t) => self.type_name(t),
            }
        }
        self.close();
    }

    fn declarator(&mut self, d: &Declarator) {
        match &d.kind {
            DeclaratorKind::Abstract => self.open("abstract"),
            DeclaratorKind::Ident(name) => self.open(&format!("ident {name}")),
            DeclaratorKind::Pointer { qualifiers, inner } => {
                self.open(&qualified("pointer", qualifiers));
                for q in qualifiers {
                    if let DeclSpecifierKind::Attribute(a) = &q.kind {
                        self.attribute(a);
                    }
                }
                self.declarator(inner);
            }
            DeclaratorKind::Array {
                inner,
                qualifiers,
                is_static,
                size,
            } => {
                let mut head = qualified("array", qualifiers);
                if *is_static {
                    head.push_str(" static");
                }
                self.open(&head);
                self.declarator(inner);
                if let Some(size) = size {
                    self.expr(size);
                }
            }
            DeclaratorKind::Function {
                inner,
                params,
                variadic,
            } => {
                self.open(if *variadic {
                    "function variadic"
                } else {
                    "function"
                });
                self.declarator(inner);
                for p in params {
                    self.open("parameter");
                    self.specifiers(&p.specifiers);
                    self.declarator(&p.declarator);
                    self.close();
                }
            }
        }
        for a in &d.attributes {
            self.attribute(a);
        }
        self.close();
    }

    fn type_name(&mut self, t: &TypeName) {
        self.open("type-name");
        self.specifiers(&t.specifiers);
        if t.declarator.kind != DeclaratorKind::Abstract || !t.declarator.attributes.is_empty() {
            self.declarator(&t.declarator);
        }
        self.close();
    }

    fn initializer(&mut self, i: &Initializer) {
        match &i.kind {
            InitializerKind::Expr(e) => self.expr(e),
            InitializerKind::List(items) => {
                self.open("init-list");
                for item in items {
                    if item.designators.is_empty() {
                        self.initializer(&item.value);
                        continue;
                    }
                    self.open("designated");
                    for d in &item.designators {
                        match d {
                            Designator::Field(f) => self.leaf(&format!("field {}", f.name)),
                            Designator::Index(e) => {
                                self.open("index");
                                self.expr(e);
                                self.close();
                            }
                        }
                    }
                    self.initializer(&item.value);
                    self.close();
                }
                self.close();
            }
        }
    }

    fn block(&mut self, b: &Block) {
        self.open("compound");
        for s in &b.items {
            self.stmt(s);
        }
        self.close();
    }

    fn stmt(&mut self, s: &Stmt) {
        let head = match &s.kind {
            StmtKind::Compound(b) => {
                if s.pragmas.is_empty() {
                    return self.block(b);
                }
                "compound"
            }
            StmtKind::Decl(d) => {
                if s.pragmas.is_empty() {
                    return self.declaration(d);
                }
                "declaration-statement"
            }
            StmtKind::Expr(_) => "expr",
            StmtKind::Null => "null",
            StmtKind::If { .. } => "if",
            StmtKind::Switch { .. } => "switch",
            StmtKind::While { .. } => "while",
            StmtKind::DoWhile { .. } => "do-while",
            StmtKind::For { .. } => "for",
            StmtKind::Goto(_) => "goto",
            StmtKind::Continue => "continue",
            StmtKind::Break => "break",
            StmtKind::Return(_) => "return",
            StmtKind::Labeled { .. } => "labeled",
        };
        match &s.kind {
            StmtKind::Goto(label) => self.open(&format!("goto {}", label.name)),
            _ => self.open(head),
        }
        for p in &s.pragmas {
            self.pragma(p);
        }
        match &s.kind {
            StmtKind::Compound(b) => {
                for item in &b.items {
                    self.stmt(item);
                }
            }
            StmtKind::Decl(d) => self.declaration(d),
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Null | StmtKind::Goto(_) | StmtKind::Continue | StmtKind::Break => {}
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.expr(cond);
                self.stmt(then_branch);
                if let Some(e) = else_branch {
                    self.stmt(e);
                }
            }
            StmtKind::Switch { cond, body } | StmtKind::While { cond, body } => {
                self.expr(cond);
                self.stmt(body);
            }
            StmtKind::DoWhile { body, cond } => {
                self.stmt(body);
                self.expr(cond);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                match &**init {
                    ForInit::None => self.leaf("empty"),
                    ForInit::Expr(e) => self.expr(e),
                    ForInit::Decl(d) => self.declaration(d),
                }
                match cond {
                    Some(c) => self.expr(c),
                    None => self.leaf("empty"),
                }
                match step {
                    Some(c) => self.expr(c),
                    None => self.leaf("empty"),
                }
                self.stmt(body);
            }
            StmtKind::Return(value) => {
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            StmtKind::Labeled { labels, body } => {
                for l in labels {
                    match &l.kind {
                        LabelKind::Named(name) => self.leaf(&format!("label {}", name.name)),
                        LabelKind::Default => self.leaf("default"),
                        LabelKind::Case(e) => {
                            self.open("case");
                            self.expr(e);
                            self.close();
                        }
                    }
                }
                self.stmt(body);
            }
        }
        self.close();
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(name) => self.open(&format!("ident {name}")),
            ExprKind::IntLiteral(text) => self.open(&format!("int {text}")),
            ExprKind::FloatLiteral(text) => self.open(&format!("float {text}")),
            ExprKind::CharLiteral(text) => self.open(&format!("char {text}")),
            ExprKind::StringLiteral(pieces) => {
                let mut head = String::from("string");
                for p in pieces {
                    head.push(' ');
                    head.push_str(&p.text);
                }
                self.open(&head);
            }
            ExprKind::Paren(inner) => {
                self.open("paren");
                self.expr(inner);
            }
            ExprKind::StmtExpr(b) => {
                self.open("statement-expression");
                self.block(b);
            }
            ExprKind::ParenList(items) => {
                self.open("paren-list");
                for i in items {
                    self.expr(i);
                }
            }
            ExprKind::Call { callee, args } => {
                self.open("call");
                self.expr(callee);
                for a in args {
                    self.expr(a);
                }
            }
            ExprKind::Index { base, index } => {
                self.open("index");
                self.expr(base);
                self.expr(index);
            }
            ExprKind::Member {
                base,
                member,
                arrow,
            } => {
                self.open(&format!(
                    "member {}{}",
                    if *arrow { "->" } else { "." },
                    member.name
                ));
                self.expr(base);
            }
            ExprKind::PostIncrement(inner) => {
                self.open("postfix ++");
                self.expr(inner);
            }
            ExprKind::PostDecrement(inner) => {
                self.open("postfix --");
                self.expr(inner);
            }
            ExprKind::Unary { op, operand } => {
                self.open(&format!("unary {}", op.spelling()));
                self.expr(operand);
            }
            ExprKind::SizeofExpr(inner) => {
                self.open("sizeof");
                self.expr(inner);
            }
            ExprKind::SizeofType(ty) => {
                self.open("sizeof");
                self.type_name(ty);
            }
            ExprKind::VecStepExpr(inner) => {
                self.open("vec_step");
                self.expr(inner);
            }
            ExprKind::VecStepType(ty) => {
                self.open("vec_step");
                self.type_name(ty);
            }
            ExprKind::Cast { ty, operand } => {
                self.open("cast");
                self.type_name(ty);
                self.expr(operand);
            }
            ExprKind::CompoundLiteral { ty, init } => {
                self.open("compound-literal");
                self.type_name(ty);
                self.initializer(init);
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                self.open(&format!("binary {}", op.spelling()));
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Assign { op, lhs, rhs, .. } => {
                self.open(&format!("assign {}", op.spelling()));
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => {
                self.open("conditional");
                self.expr(cond);
                self.expr(then_expr);
                self.expr(else_expr);
            }
        }
        self.close();
    }
}

/// `head` followed by the qualifier keywords among `qualifiers`.
fn qualified(head: &str, qualifiers: &[DeclSpecifier]) -> String {
    let mut s = String::from(head);
    for q in qualifiers {
        if let DeclSpecifierKind::Qualifier(_) = q.kind
            && let Some(word) = specifier_word(&q.kind)
        {
            s.push(' ');
            s.push_str(&word);
        }
    }
    s
}

/// The word a keyword-like specifier prints as (`None` for those printed as children).
fn specifier_word(kind: &DeclSpecifierKind) -> Option<String> {
    Some(
        match kind {
            DeclSpecifierKind::Storage(s) => match s {
                StorageClass::Typedef => "typedef",
                StorageClass::Extern => "extern",
                StorageClass::Static => "static",
                StorageClass::Auto => "auto",
                StorageClass::Register => "register",
            },
            DeclSpecifierKind::Qualifier(q) => match q {
                Qualifier::Const => "const",
                Qualifier::Volatile => "volatile",
                Qualifier::Restrict => "restrict",
                Qualifier::AddressSpace(AddressSpace::Global) => "global",
                Qualifier::AddressSpace(AddressSpace::Local) => "local",
                Qualifier::AddressSpace(AddressSpace::Constant) => "constant",
                Qualifier::AddressSpace(AddressSpace::Private) => "private",
                Qualifier::Access(AccessQualifier::ReadOnly) => "read_only",
                Qualifier::Access(AccessQualifier::WriteOnly) => "write_only",
                Qualifier::Access(AccessQualifier::ReadWrite) => "read_write",
            },
            DeclSpecifierKind::Function(FunctionSpecifier::Kernel) => "kernel",
            DeclSpecifierKind::Function(FunctionSpecifier::Inline) => "inline",
            DeclSpecifierKind::Type(t) => match t {
                TypeSpecifier::Void => "void",
                TypeSpecifier::Bool => "bool",
                TypeSpecifier::Char => "char",
                TypeSpecifier::Short => "short",
                TypeSpecifier::Int => "int",
                TypeSpecifier::Long => "long",
                TypeSpecifier::Float => "float",
                TypeSpecifier::Double => "double",
                TypeSpecifier::Half => "half",
                TypeSpecifier::Signed => "signed",
                TypeSpecifier::Unsigned => "unsigned",
                TypeSpecifier::TypeName(name) => return Some(name.to_string()),
                TypeSpecifier::Struct(_) | TypeSpecifier::Enum(_) | TypeSpecifier::Typeof(_) => {
                    return None;
                }
            },
            DeclSpecifierKind::Attribute(_) => return None,
        }
        .to_string(),
    )
}
