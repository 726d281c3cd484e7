//! The typed tree: what semantic analysis produces and code generation consumes.
//!
//! Everything here is resolved: every expression has its type, every name its variable or
//! function, every implicit conversion of OpenCL C is an explicit [`Convert`] node, builtin
//! calls name the overload chosen, constants are folded where the language requires a
//! constant. Lvalues are [`Place`]s, read with [`ExprKind::Load`], so code generation never
//! has to ask whether an expression denotes a value or a location.
//!
//! [`Convert`]: ExprKind::Convert

use std::sync::Arc;

use super::source::Span;
use super::types::{AddressSpace, QualType, Record, Scalar, Type};

/// Index of a function in [`Program::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// Index of a variable in [`Function::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// Index of a program-scope variable in [`Program::globals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// Index of a statement label (a `goto` target or a `case`/`default` of a switch) in its
/// function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

/// The extensions a program enabled (`#pragma OPENCL EXTENSION`) and may use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    pub fp64: bool,
    pub fp16: bool,
    pub int64_atomics: bool,
    pub byte_addressable_store: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub functions: Vec<Function>,
    /// Program-scope `__constant` variables.
    pub globals: Vec<Global>,
}

impl Program {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }

    /// The kernels, in source order: those defined here (an `extern __kernel` declaration
    /// names a kernel of another object).
    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kernel.is_some() && f.body.is_some())
            .map(|(i, f)| (FuncId(i as u32), f))
    }
}

/// A program-scope `__constant` variable: its initial bytes are computed at compile time
/// (the spec requires constant initializers).
#[derive(Clone, Debug)]
pub struct Global {
    pub name: Arc<str>,
    pub ty: QualType,
    /// `ty.size()` bytes, little-endian, zero where nothing was initialized.
    pub init: Vec<u8>,
    /// Whether this program holds the definition (a declaration with an initializer). An
    /// `extern` declaration alone compiles (`clCompileProgram`); the link needs the
    /// definition from some object.
    pub defined: bool,
    pub span: Span,
}

/// What makes a function a kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelInfo {
    /// `reqd_work_group_size(x, y, z)`.
    pub reqd_work_group_size: Option<[u64; 3]>,
    /// `work_group_size_hint(x, y, z)`.
    pub work_group_size_hint: Option<[u64; 3]>,
    /// `vec_type_hint(T)`.
    pub vec_type_hint: Option<Type>,
    /// The kernel's attributes as written (`CL_KERNEL_ATTRIBUTES`), space-separated.
    pub attributes: String,
    /// For `clGetKernelArgInfo`: each parameter's type as written and its qualifiers.
    pub params: Vec<KernelParamInfo>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KernelParamInfo {
    pub name: Arc<str>,
    /// The type name as `CL_KERNEL_ARG_TYPE_NAME` reports it (`float4*`, `uint`, ...).
    pub type_name: String,
    pub access: Option<AccessQualifier>,
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessQualifier {
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: Arc<str>,
    /// The parameters: the first `params` entries of `locals`.
    pub params: u32,
    pub ret: Type,
    /// Every variable of the function: parameters first, then each declared variable
    /// (`__local` ones included, with `ty.space == Local`).
    pub locals: Vec<Local>,
    /// `None` for a function that was declared but never defined (an error if called).
    pub body: Option<Block>,
    pub kernel: Option<KernelInfo>,
    /// The functions this one calls (for the recursion check and for inlining order).
    pub callees: Vec<FuncId>,
    /// How many labels `LabelId`s of this function go up to.
    pub labels: u32,
    pub span: Span,
}

impl Function {
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }

    pub fn param_ids(&self) -> impl Iterator<Item = LocalId> {
        (0..self.params).map(LocalId)
    }
}

#[derive(Clone, Debug)]
pub struct Local {
    pub name: Arc<str>,
    pub ty: QualType,
    pub span: Span,
}

pub mod build;
pub mod lift;
pub mod visit;

pub type Block = Vec<Stmt>;

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Expr(Expr),
    /// A variable comes into scope, with its initial value if it has one.
    Decl {
        local: LocalId,
        init: Option<Init>,
    },
    Block(Block),
    If {
        cond: Expr,
        then_branch: Block,
        else_branch: Block,
    },
    /// `while`, `do`-`while` and `for` (the `for` initialization is a statement before the
    /// loop, in a block around it). `cond` is tested before each iteration unless
    /// `test_after`; `step` runs after the body and on `continue`.
    Loop {
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Block,
        test_after: bool,
        unroll: Option<u32>,
    },
    /// `switch`: the value's cases name labels placed in the body with [`StmtKind::Label`].
    Switch {
        value: Expr,
        cases: Vec<(i64, LabelId)>,
        default: Option<LabelId>,
        body: Block,
    },
    Label(LabelId),
    Goto(LabelId),
    Break,
    Continue,
    Return(Option<Expr>),
}

/// An initializer: one value, or (for arrays, structs, unions, and vectors written with a
/// brace list) the values of the parts, each at its byte offset, the rest zero.
#[derive(Clone, Debug)]
pub enum Init {
    Expr(Expr),
    Aggregate(Vec<(u64, Expr)>),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    /// The value's type (unqualified).
    pub ty: Type,
    pub span: Span,
}

/// A compile-time constant value.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    /// Integer lanes (the bits, zero-extended to 64), one per lane.
    Int(Vec<u64>),
    /// Floating lanes (each exactly representable in the type's element).
    Float(Vec<f64>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    BitNot,
    /// `!` on a vector: -1 where the lane is 0, else 0 (scalars use `LogicalNot`).
    VectorNot,
    /// `!` on a scalar or pointer: 1 or 0 (`int`).
    LogicalNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// Shifts take the count modulo the bit width of the (element) type (6.3.j).
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    /// Comparisons: `int` 1/0 for scalars, a signed mask vector -1/0 for vectors (the
    /// expression's type says which). NaN operands compare false (`!=` true).
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    /// `&&` / `||` on vectors: lane-wise, both sides evaluated, -1/0 masks.
    VectorAnd,
    VectorOr,
}

/// Rounding of a conversion (6.2.3.2): the builtins library's, so that the tree and the
/// conversion routines it calls name the same modes. `Default` means the language's
/// default for the pair of types: toward zero for float → integer, to nearest even
/// otherwise.
pub use clift_builtins::convert::Rounding;

/// A builtin, resolved once by semantic analysis: passes ask its
/// [`attributes`](BuiltinId::attributes) or match its [`function`](BuiltinId::function),
/// never its name.
pub use clift_builtins::signatures::{BuiltinId, Function as BuiltinFunction};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertKind {
    /// Arithmetic conversion of each lane to the target's element type (C's conversion for
    /// implicit and cast conversions; `convert_T[_sat][_rtX]` with its options). The lane
    /// count of operand and result are equal.
    Numeric {
        saturate: bool,
        rounding: Rounding,
    },
    /// A scalar repeated into every lane (the scalar already has the element type).
    Splat,
    /// A `bool` to an integer vector: every lane -1 for true, 0 for false (6.2.2).
    BoolSplat,
    /// To `bool` (scalar): 1 if not zero (or not NULL).
    ToBool,
    /// `as_T`: the same bits as another type of the same size.
    Bitcast,
    /// Pointer to pointer in the same address space.
    PointerCast,
    PointerToInt,
    IntToPointer,
    /// An array (or a function) used as a value: the address of its first element.
    Decay,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Const(Constant),
    /// The value stored at a place.
    Load(Box<Place>),
    /// The address of a place (`&x`, array decay uses `Convert::Decay` of a `Load`).
    AddressOf(Box<Place>),
    /// `place = value` (`op` None) or `place op= value`, where `value` is converted to the
    /// operation's type; the result is the new value of the place (converted to its type).
    Assign {
        place: Box<Place>,
        op: Option<BinaryOp>,
        value: Box<Expr>,
        op_ty: Type,
    },
    /// `++`/`--`, prefix (result: new value) or postfix (result: old value). Pointers step
    /// by their pointee size.
    IncDec {
        place: Box<Place>,
        increment: bool,
        prefix: bool,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// Both operands already converted (for arithmetic: to the expression's type; for
    /// comparisons: to their common type).
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `ptr + int` / `ptr - int`: the integer is in elements.
    PointerOffset {
        pointer: Box<Expr>,
        offset: Box<Expr>,
        subtract: bool,
    },
    /// `ptr - ptr`: elements between them (`ptrdiff_t`, i.e. `long`).
    PointerDiff {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Scalar `&&` / `||`: short-circuit, result `int` 1/0.
    Logical {
        and: bool,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Scalar `c ? a : b`: evaluates one side only.
    Conditional {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
    /// Vector `c ? a : b`: lane-wise on the most significant bit of each lane of `cond`
    /// (both sides evaluated), as `select(b, a, c)`.
    Select {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
    Convert {
        kind: ConvertKind,
        operand: Box<Expr>,
    },
    /// `(float4)(a, b.xy, c)`: the lanes of the parts in order; each part is a scalar or a
    /// vector of the result's element type.
    VectorLiteral(Vec<Expr>),
    /// Lanes of a vector value, in the order given (`v.wzyx`, `v.s01`, `v.hi`).
    Swizzle {
        base: Box<Expr>,
        lanes: Vec<u8>,
    },
    Call {
        func: FuncId,
        args: Vec<Expr>,
    },
    /// A builtin function, resolved to its id (whose attributes say what it does), with
    /// arguments converted to the chosen overload's parameter types.
    Builtin {
        id: BuiltinId,
        args: Vec<Expr>,
    },
    /// A string literal (only as `printf`'s format or a `%s` argument): its bytes with the
    /// terminating NUL, in `__constant` memory.
    StringLiteral(Vec<u8>),
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// A GNU statement expression: `body` runs, then `value` (if any) is the result (else
    /// the type is `void`). Only semantic analysis sees it: before it hands a function on,
    /// the statements are moved out of the expression (`sema::stmt_expr`), so code
    /// generation and its passes never meet one.
    StmtExpr {
        body: Block,
        value: Option<Box<Expr>>,
    },
}

#[derive(Clone, Debug)]
pub struct Place {
    pub kind: PlaceKind,
    /// The type stored there, with its address space and qualifiers.
    pub ty: QualType,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum PlaceKind {
    Local(LocalId),
    Global(GlobalId),
    /// `*pointer` (and `p[i]`, as `*(p + i)`).
    Deref(Box<Expr>),
    /// The storage of a struct value that is not a variable (a call's result), so that its
    /// fields can be read.
    Value(Box<Expr>),
    /// An element of an array place.
    Element {
        array: Box<Place>,
        index: Box<Expr>,
    },
    /// A field of a struct or union place.
    Field {
        record: Box<Place>,
        field: u32,
    },
    /// Lanes of a vector place (`v.xy = ...`; no lane twice when assigned to).
    Lanes {
        vector: Box<Place>,
        lanes: Vec<u8>,
    },
    /// A compound literal (`(struct S){1, 2}`, `(int[]){1, 2}`): an unnamed variable of the
    /// function, initialized by `init` each time the place is evaluated (C99 6.5.2.5).
    CompoundLiteral {
        local: LocalId,
        init: Box<Init>,
    },
}

impl Expr {
    pub fn int_const(value: u64, scalar: Scalar, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Const(Constant::Int(vec![value])),
            ty: Type::Scalar(scalar),
            span,
        }
    }
}

impl Place {
    pub fn space(&self) -> AddressSpace {
        self.ty.space
    }
}

/// The record of a struct/union type, if `ty` is one.
pub fn record(ty: &Type) -> Option<&Arc<Record>> {
    match ty {
        Type::Record(r) => Some(r),
        _ => None,
    }
}
