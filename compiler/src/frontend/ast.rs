//! The syntax tree of OpenCL C 1.2: what the parser builds and semantic analysis reads.
//!
//! The tree is syntax only. Nothing here is resolved: identifiers are names, literals keep
//! their spelling, declarations keep their specifiers in source order and their declarators
//! in C's inside-out shape, and constructs that OpenCL C forbids but C's grammar allows
//! (`auto`, bit-fields, function pointers, variadic prototypes) are kept so that semantic
//! analysis can reject them with a precise message. Every node carries the [`Span`] of its
//! tokens as they appear in the preprocessed program (the `site` of each token), so
//! diagnostics point where the user looks.

use std::sync::Arc;

use super::source::Span;

/// A whole program after preprocessing: its external declarations in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranslationUnit {
    pub items: Vec<ExternalDecl>,
}

/// One top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum ExternalDecl {
    Function(FunctionDef),
    Declaration(Declaration),
    /// A `#pragma` at file scope (`OPENCL EXTENSION ...`, `OPENCL FP_CONTRACT ...`): kept in
    /// order because it changes what the following declarations may use.
    Pragma(Pragma),
}

/// A `#pragma` line as the preprocessor hands it over: the text after `pragma`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma {
    pub text: Arc<str>,
    pub span: Span,
}

/// A name and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: Arc<str>,
    pub span: Span,
}

/// `declaration-specifiers declarator compound-statement`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub specifiers: DeclSpecifiers,
    /// A function declarator (possibly wrapped, e.g. a function returning a pointer).
    pub declarator: Declarator,
    pub body: Block,
    pub span: Span,
}

/// `declaration-specifiers init-declarator-list? ;`
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    pub specifiers: DeclSpecifiers,
    /// Empty for declarations that only declare a tag (`struct S { ... };`) or an anonymous
    /// struct member.
    pub declarators: Vec<InitDeclarator>,
    pub span: Span,
}

/// `declarator ( = initializer )?`
#[derive(Clone, Debug, PartialEq)]
pub struct InitDeclarator {
    pub declarator: Declarator,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// The specifiers, qualifiers and attributes before a declarator, in source order.
///
/// C lets them come in any order and combine (`unsigned long int`, `int const`); keeping the
/// list as written lets semantic analysis both combine them and report the bad combinations
/// (`long float`, two storage classes, `__global __local`) where they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclSpecifiers {
    pub items: Vec<DeclSpecifier>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclSpecifier {
    pub kind: DeclSpecifierKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DeclSpecifierKind {
    Storage(StorageClass),
    Qualifier(Qualifier),
    Function(FunctionSpecifier),
    Type(TypeSpecifier),
    Attribute(Attribute),
}

/// Storage-class specifiers. `auto` and `register` are parsed (C99 has them) so that
/// semantic analysis can say OpenCL C does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageClass {
    Typedef,
    Extern,
    Static,
    Auto,
    Register,
}

/// Type qualifiers in the wide sense: C's three, OpenCL's address spaces and image access
/// qualifiers. They share one enum because they share the places they may be written (the
/// address space of a pointer's target goes before the `*`, the pointer's own after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qualifier {
    Const,
    Volatile,
    Restrict,
    AddressSpace(AddressSpace),
    Access(AccessQualifier),
}

/// `__global`, `__local`, `__constant`, `__private` (with or without the underscores).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressSpace {
    Global,
    Local,
    Constant,
    Private,
}

/// `__read_only`, `__write_only`, `__read_write` (with or without the underscores).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessQualifier {
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

/// `__kernel`/`kernel` and `inline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionSpecifier {
    Kernel,
    Inline,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeSpecifier {
    Void,
    /// `bool` or `_Bool`.
    Bool,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    Half,
    Signed,
    Unsigned,
    /// A typedef name, or one of OpenCL's predefined type names (`uint`, `float4`,
    /// `size_t`, `image2d_t`, ...), which semantic analysis resolves.
    TypeName(Arc<str>),
    Struct(StructSpecifier),
    Enum(EnumSpecifier),
    /// `__typeof__(expression)` or `__typeof__(type-name)`.
    Typeof(Typeof),
}

/// The operand of `__typeof__`: the type of an expression (not evaluated), or a type.
#[derive(Clone, Debug, PartialEq)]
pub enum Typeof {
    Expr(Box<Expr>),
    Type(Box<TypeName>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructKind {
    Struct,
    Union,
}

/// `struct-or-union attributes? identifier? ( { struct-declaration* } )? attributes?`
#[derive(Clone, Debug, PartialEq)]
pub struct StructSpecifier {
    pub kind: StructKind,
    /// Attributes written after the keyword and after the closing brace (both apply to the
    /// type, e.g. `packed`).
    pub attributes: Vec<Attribute>,
    pub tag: Option<Ident>,
    /// `None` for a reference to a tag (`struct S *p`); `Some` for a definition, even empty.
    pub body: Option<Vec<StructItem>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StructItem {
    Field(FieldDecl),
    Pragma(Pragma),
}

/// A struct-declaration: `specifier-qualifier-list struct-declarator-list? ;`
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    pub specifiers: DeclSpecifiers,
    /// Empty for an anonymous struct or union member.
    pub declarators: Vec<FieldDeclarator>,
    pub span: Span,
}

/// `declarator` or `declarator? : constant-expression` (a bit-field, which OpenCL C
/// forbids: kept for semantic analysis to reject).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDeclarator {
    /// Abstract for an unnamed bit-field.
    pub declarator: Declarator,
    pub bit_width: Option<Expr>,
    pub span: Span,
}

/// `enum attributes? identifier? ( { enumerator-list ,? } )?`
#[derive(Clone, Debug, PartialEq)]
pub struct EnumSpecifier {
    pub attributes: Vec<Attribute>,
    pub tag: Option<Ident>,
    /// `None` for a reference to a tag.
    pub enumerators: Option<Vec<Enumerator>>,
    pub span: Span,
}

/// `identifier attributes? ( = constant-expression )?`
#[derive(Clone, Debug, PartialEq)]
pub struct Enumerator {
    pub name: Ident,
    pub attributes: Vec<Attribute>,
    pub value: Option<Expr>,
    pub span: Span,
}

/// One attribute of a GNU `__attribute__((...))` list.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// As written (`aligned` or `__aligned__`; keywords such as `const` are names here).
    pub name: Ident,
    /// `None` without parentheses; `Some(vec![])` for `name()`.
    pub args: Option<Vec<AttributeArg>>,
    /// The attribute's tokens as text, one space where the source had white space
    /// (`reqd_work_group_size(16, 16, 1)`): what `clGetKernelInfo(CL_KERNEL_ATTRIBUTES)`
    /// reports. Made from the preprocessed tokens, so macro arguments appear expanded.
    pub text: String,
    pub span: Span,
}

/// An attribute argument: a type for `vec_type_hint(float4)`, an expression otherwise
/// (`endian(host)` gives the identifier `host`).
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeArg {
    Expr(Expr),
    Type(TypeName),
}

/// A declarator, in C's inside-out shape: the outermost node is the last type operator to
/// apply. `*a[4]` is `Pointer { inner: Array { inner: Ident(a) } }`: starting from the
/// specifiers' type, each node wraps the type (here "pointer to T", then "array of 4 of
/// that") and hands it to `inner`, until the name (or nothing, for an abstract declarator)
/// is reached. `(*a)[4]` is `Array { inner: Pointer { inner: Ident(a) } }`, a pointer to an
/// array. Parentheses leave no node.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub kind: DeclaratorKind,
    /// GNU attributes written after this declarator (`int x __attribute__((aligned(16)))`)
    /// or at the start of its parentheses.
    pub attributes: Vec<Attribute>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DeclaratorKind {
    /// No name: an abstract declarator (type names, unnamed parameters, unnamed bit-fields).
    Abstract,
    /// The declared name; the declarator's span is the name's.
    Ident(Arc<str>),
    /// `* qualifiers inner`. The qualifiers (only [`DeclSpecifierKind::Qualifier`] and
    /// [`DeclSpecifierKind::Attribute`] items) qualify the pointer itself.
    Pointer {
        qualifiers: Vec<DeclSpecifier>,
        inner: Box<Declarator>,
    },
    /// `inner [ static? qualifiers static? size? ]` (qualifiers and `static` are C99's
    /// array-parameter forms).
    Array {
        inner: Box<Declarator>,
        qualifiers: Vec<DeclSpecifier>,
        is_static: bool,
        size: Option<Box<Expr>>,
    },
    /// `inner ( parameters )`. `()` gives no parameters; `(void)` gives one parameter whose
    /// type is `void`, exactly as written.
    Function {
        inner: Box<Declarator>,
        params: Vec<ParamDecl>,
        variadic: bool,
    },
}

impl Declarator {
    /// The declared name, if the declarator has one.
    pub fn name(&self) -> Option<(&Arc<str>, Span)> {
        let mut d = self;
        loop {
            match &d.kind {
                DeclaratorKind::Abstract => return None,
                DeclaratorKind::Ident(name) => return Some((name, d.span)),
                DeclaratorKind::Pointer { inner, .. }
                | DeclaratorKind::Array { inner, .. }
                | DeclaratorKind::Function { inner, .. } => d = inner,
            }
        }
    }

    /// The function declarator that applies to the name directly (`f(int a)` in
    /// `int (*f(int a))(float)`): the parameters a function definition's body sees.
    pub fn function_params(&self) -> Option<&[ParamDecl]> {
        let mut d = self;
        let mut found = None;
        loop {
            match &d.kind {
                DeclaratorKind::Abstract | DeclaratorKind::Ident(_) => return found,
                DeclaratorKind::Function { inner, params, .. } => {
                    found = Some(params.as_slice());
                    d = inner;
                }
                DeclaratorKind::Pointer { inner, .. } | DeclaratorKind::Array { inner, .. } => {
                    found = None;
                    d = inner;
                }
            }
        }
    }
}

/// `declaration-specifiers declarator` or `declaration-specifiers abstract-declarator?`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub specifiers: DeclSpecifiers,
    pub declarator: Declarator,
    pub span: Span,
}

/// `specifier-qualifier-list abstract-declarator?`: the type in casts, `sizeof`,
/// `vec_step`, compound literals and attribute arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    pub specifiers: DeclSpecifiers,
    pub declarator: Declarator,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Initializer {
    pub kind: InitializerKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InitializerKind {
    Expr(Expr),
    /// `{ initializer-list ,? }` (also empty, as GCC allows; semantic analysis decides).
    List(Vec<InitItem>),
}

/// `designation? initializer`.
#[derive(Clone, Debug, PartialEq)]
pub struct InitItem {
    /// `.field` and `[index]` in order; empty without a designation.
    pub designators: Vec<Designator>,
    pub value: Initializer,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Designator {
    Field(Ident),
    Index(Expr),
}

/// `{ block-item* }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub items: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    /// The `#pragma` lines right before this statement (`unroll` applies to the loop that
    /// follows; `OPENCL EXTENSION` applies from here on). Pragmas at the end of a block, with
    /// no statement after them, sit on a [`StmtKind::Null`] that has no source of its own.
    pub pragmas: Vec<Pragma>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Compound(Block),
    /// A declaration as a block item (or in a `for` header, see [`ForInit`]).
    Decl(Declaration),
    Expr(Expr),
    /// `;`
    Null,
    If {
        cond: Expr,
        then_branch: Box<Stmt>,
        else_branch: Option<Box<Stmt>>,
    },
    Switch {
        cond: Expr,
        body: Box<Stmt>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    /// Its parts are boxed: inline they made every statement of a block twice its size.
    For {
        init: Box<ForInit>,
        cond: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        body: Box<Stmt>,
    },
    Goto(Ident),
    Continue,
    Break,
    Return(Option<Expr>),
    /// A statement with the labels before it (`case 1: case 2: x = 0;`). Consecutive labels
    /// share one node, so a long run of `case` labels does not nest.
    Labeled {
        labels: Vec<Label>,
        body: Box<Stmt>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForInit {
    None,
    Expr(Expr),
    Decl(Declaration),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub kind: LabelKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LabelKind {
    Named(Ident),
    Case(Expr),
    Default,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Ident(Arc<str>),
    /// An integer constant as written, suffix included (`0x1Fu`, `10L`).
    IntLiteral(Arc<str>),
    /// A floating constant as written (`1.5e-3f`, `0x1p-2`, `.5h`); told from an integer
    /// by its spelling only (a `.`, or an exponent: `e` in decimal, `p` in hexadecimal).
    FloatLiteral(Arc<str>),
    /// A character constant as written, quotes included.
    CharLiteral(Arc<str>),
    /// Adjacent string literals, each as written with its quotes and span; semantic
    /// analysis decodes and concatenates them.
    StringLiteral(Vec<StrPiece>),
    /// `( expression )`.
    Paren(Box<Expr>),
    /// The parenthesized list after a cast, `(float4)(a, b, c, d)` or `(int)(x)`: OpenCL's
    /// vector literal or, for a non-vector type, C's cast of a (comma) expression.
    /// Semantic analysis decides; the parser only knows which names are vector types to
    /// decide whether postfix operators after the list bind to the cast (they do for a
    /// vector literal, as in clang) or to the parenthesized expression (C).
    ParenList(Vec<Expr>),
    /// GNU statement expression `({ int t = x; t * 2; })`: the block runs, and the value of
    /// its last statement, if that is an expression statement, is the value (else `void`).
    /// clang accepts it in OpenCL C, and macro libraries use it.
    StmtExpr(Block),
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `base.member` or `base->member` (swizzles like `.xyzw`, `.s01`, `.hi` included).
    Member {
        base: Box<Expr>,
        member: Ident,
        arrow: bool,
    },
    PostIncrement(Box<Expr>),
    PostDecrement(Box<Expr>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    SizeofExpr(Box<Expr>),
    SizeofType(Box<TypeName>),
    VecStepExpr(Box<Expr>),
    VecStepType(Box<TypeName>),
    Cast {
        ty: Box<TypeName>,
        operand: Box<Expr>,
    },
    /// `( type-name ) { initializer-list }`.
    CompoundLiteral {
        ty: Box<TypeName>,
        init: Box<Initializer>,
    },
    /// A binary operator, the comma operator included; `op_span` is the operator's.
    Binary {
        op: BinaryOp,
        op_span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `=` and the compound assignments.
    Assign {
        op: AssignOp,
        op_span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Conditional {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct StrPiece {
    pub text: Arc<str>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    PreIncrement,
    PreDecrement,
    AddressOf,
    Deref,
    Plus,
    Minus,
    BitNot,
    LogicalNot,
}

impl UnaryOp {
    pub fn spelling(self) -> &'static str {
        match self {
            UnaryOp::PreIncrement => "++",
            UnaryOp::PreDecrement => "--",
            UnaryOp::AddressOf => "&",
            UnaryOp::Deref => "*",
            UnaryOp::Plus => "+",
            UnaryOp::Minus => "-",
            UnaryOp::BitNot => "~",
            UnaryOp::LogicalNot => "!",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogicalAnd,
    LogicalOr,
    Comma,
}

impl BinaryOp {
    pub fn spelling(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::LogicalAnd => "&&",
            BinaryOp::LogicalOr => "||",
            BinaryOp::Comma => ",",
        }
    }
}

/// `=` (`Assign`) and the compound assignments `op=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Assign,
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    BitAnd,
    BitXor,
    BitOr,
}

impl AssignOp {
    pub fn spelling(self) -> &'static str {
        match self {
            AssignOp::Assign => "=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
            AssignOp::Rem => "%=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Shl => "<<=",
            AssignOp::Shr => ">>=",
            AssignOp::BitAnd => "&=",
            AssignOp::BitXor => "^=",
            AssignOp::BitOr => "|=",
        }
    }

    /// The binary operator of a compound assignment (`None` for plain `=`).
    pub fn binary(self) -> Option<BinaryOp> {
        Some(match self {
            AssignOp::Assign => return None,
            AssignOp::Mul => BinaryOp::Mul,
            AssignOp::Div => BinaryOp::Div,
            AssignOp::Rem => BinaryOp::Rem,
            AssignOp::Add => BinaryOp::Add,
            AssignOp::Sub => BinaryOp::Sub,
            AssignOp::Shl => BinaryOp::Shl,
            AssignOp::Shr => BinaryOp::Shr,
            AssignOp::BitAnd => BinaryOp::BitAnd,
            AssignOp::BitXor => BinaryOp::BitXor,
            AssignOp::BitOr => BinaryOp::BitOr,
        })
    }
}

#[cfg(test)]
mod tests {
    /// A block's statements are stored inline: the largest kind sets every statement's size
    /// (a large kernel's syntax tree is mostly its blocks).
    #[test]
    fn a_statement_takes_128_bytes() {
        assert_eq!(std::mem::size_of::<super::Stmt>(), 128);
    }
}
