//! The OpenCL C type system: scalar, vector, pointer, array, struct/union, function, image,
//! sampler and event types, with address spaces and qualifiers; sizes and alignments (the
//! host's layout rules, so by-value struct arguments match); and the conversion rules of
//! OpenCL C 1.2 section 6.2, which differ from C99 for vectors.

use std::fmt;
use std::sync::Arc;

pub use clift_builtins::types::Scalar;

/// The vector widths OpenCL C has (3-vectors are stored as 4).
pub const VECTOR_WIDTHS: [u8; 5] = [2, 3, 4, 8, 16];

/// Address spaces (OpenCL 1.2 section 6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AddressSpace {
    #[default]
    Private,
    Global,
    Local,
    Constant,
}

impl AddressSpace {
    pub fn name(self) -> &'static str {
        match self {
            AddressSpace::Private => "__private",
            AddressSpace::Global => "__global",
            AddressSpace::Local => "__local",
            AddressSpace::Constant => "__constant",
        }
    }
}

/// The image types of OpenCL 1.2 (shared with the builtins library's signature table).
pub use clift_builtins::types::ImageKind;

/// `const`, `volatile`, `restrict`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Qualifiers {
    pub is_const: bool,
    pub is_volatile: bool,
    pub is_restrict: bool,
}

/// A field of a struct or union, laid out.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: Arc<str>,
    pub ty: QualType,
    pub offset: u64,
}

/// A struct or union type: its fields (with offsets), size and alignment.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub name: Option<Arc<str>>,
    pub is_union: bool,
    pub fields: Vec<Field>,
    pub size: u64,
    pub align: u64,
    /// Declared but not defined yet.
    pub incomplete: bool,
}

impl Record {
    /// Lays out `fields` with the C rules (each field at the next multiple of its alignment;
    /// union fields all at 0; size rounded up to the alignment). `packed` drops the
    /// alignment padding; `min_align` is an `aligned(N)` attribute on the type.
    pub fn layout(
        name: Option<Arc<str>>,
        is_union: bool,
        members: Vec<(Arc<str>, QualType)>,
        packed: bool,
        min_align: u64,
    ) -> Record {
        let mut fields = Vec::with_capacity(members.len());
        let (mut size, mut align) = (0u64, min_align.max(1));
        for (name, ty) in members {
            let field_align = if packed { 1 } else { ty.ty.align() };
            let offset = if is_union {
                0
            } else {
                size.next_multiple_of(field_align)
            };
            size = if is_union {
                size.max(ty.ty.size())
            } else {
                offset + ty.ty.size()
            };
            align = align.max(field_align);
            fields.push(Field { name, ty, offset });
        }
        Record {
            name,
            is_union,
            fields,
            size: size.next_multiple_of(align),
            align,
            incomplete: false,
        }
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| &*f.name == name)
    }
}

/// A function type.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionType {
    pub ret: QualType,
    pub params: Vec<QualType>,
    /// `...` (only the builtin `printf` has one).
    pub variadic: bool,
}

/// An OpenCL C type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Void,
    Scalar(Scalar),
    /// A vector of 2, 3, 4, 8 or 16 elements.
    Vector(Scalar, u8),
    /// A pointer; the pointee carries the address space it points into.
    Pointer(Box<QualType>),
    /// An array with its length (None: unsized, as in `int a[] = {...}` before completion).
    Array(Box<QualType>, Option<u64>),
    /// A struct or union; shared, so that every use sees the definition.
    Record(Arc<Record>),
    /// An enumeration: its name, behaving as its underlying `int`/`uint`.
    Enum(Option<Arc<str>>, Scalar),
    Function(Box<FunctionType>),
    Image(ImageKind),
    Sampler,
    Event,
}

/// A type with its qualifiers and address space (C's "qualified type", with OpenCL's
/// address space as one more qualifier).
#[derive(Clone, Debug, PartialEq)]
pub struct QualType {
    pub ty: Type,
    pub quals: Qualifiers,
    pub space: AddressSpace,
}

impl QualType {
    pub fn new(ty: Type) -> QualType {
        QualType {
            ty,
            quals: Qualifiers::default(),
            space: AddressSpace::Private,
        }
    }

    pub fn in_space(ty: Type, space: AddressSpace) -> QualType {
        QualType {
            ty,
            quals: Qualifiers::default(),
            space,
        }
    }
}

impl Type {
    pub fn int() -> Type {
        Type::Scalar(Scalar::Int)
    }

    /// The vector named like `float4`, `uchar16` (or `None`).
    pub fn vector_from_name(name: &str) -> Option<Type> {
        let digits = name.find(|c: char| c.is_ascii_digit())?;
        let (elem, width) = name.split_at(digits);
        let elem = Scalar::from_name(elem).filter(|s| *s != Scalar::Bool)?;
        let width: u8 = width.parse().ok()?;
        VECTOR_WIDTHS
            .contains(&width)
            .then_some(Type::Vector(elem, width))
    }

    /// Size in bytes (`sizeof`). A 3-vector has the size of a 4-vector (6.1.5).
    pub fn size(&self) -> u64 {
        match self {
            Type::Void | Type::Function(_) => 1,
            Type::Scalar(s) => s.size(),
            Type::Vector(s, n) => s.size() * storage_lanes(*n),
            Type::Pointer(_) | Type::Image(_) | Type::Event => 8,
            Type::Sampler => 4,
            Type::Array(elem, len) => elem.ty.size() * len.unwrap_or(0),
            Type::Record(r) => r.size,
            Type::Enum(_, s) => s.size(),
        }
    }

    /// Alignment in bytes. Vectors are aligned to their size (6.1.5).
    pub fn align(&self) -> u64 {
        match self {
            Type::Array(elem, _) => elem.ty.align(),
            Type::Record(r) => r.align,
            other => other.size(),
        }
    }

    pub fn is_void(&self) -> bool {
        matches!(self, Type::Void)
    }

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Enum(_, s) => Some(*s),
            _ => None,
        }
    }

    /// The element type of a vector, or the scalar itself.
    pub fn element(&self) -> Option<Scalar> {
        match self {
            Type::Vector(s, _) => Some(*s),
            other => other.scalar(),
        }
    }

    /// The number of lanes (1 for scalars).
    pub fn lanes(&self) -> u8 {
        match self {
            Type::Vector(_, n) => *n,
            _ => 1,
        }
    }

    pub fn is_vector(&self) -> bool {
        matches!(self, Type::Vector(..))
    }

    /// Arithmetic: scalars and vectors of numbers.
    pub fn is_arithmetic(&self) -> bool {
        self.element().is_some()
    }

    pub fn is_integer(&self) -> bool {
        self.element().is_some_and(Scalar::is_integer)
    }

    pub fn is_floating(&self) -> bool {
        self.element().is_some_and(Scalar::is_float)
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(_))
    }

    /// Scalar types in C's sense (arithmetic scalars and pointers): what `if`, `!`, `&&`
    /// accept.
    pub fn is_c_scalar(&self) -> bool {
        self.scalar().is_some() || self.is_pointer()
    }

    /// `vec_step`: the lanes, with 3-vectors counting 4 (6.11.1).
    pub fn vec_step(&self) -> u64 {
        match self {
            Type::Vector(_, n) => storage_lanes(*n),
            _ => 1,
        }
    }

    /// The same shape with another element type (`float4` → `int4`).
    pub fn with_element(&self, elem: Scalar) -> Type {
        match self {
            Type::Vector(_, n) => Type::Vector(elem, *n),
            _ => Type::Scalar(elem),
        }
    }
}

/// Lanes in storage: 3-vectors occupy 4.
pub fn storage_lanes(n: u8) -> u64 {
    if n == 3 { 4 } else { u64::from(n) }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Scalar(s) => f.write_str(s.name()),
            Type::Vector(s, n) => write!(f, "{}{n}", s.name()),
            Type::Pointer(p) => write!(f, "{p} *"),
            Type::Array(e, Some(n)) => write!(f, "{e}[{n}]"),
            Type::Array(e, None) => write!(f, "{e}[]"),
            Type::Record(r) => {
                let kind = if r.is_union { "union" } else { "struct" };
                write!(f, "{kind} {}", r.name.as_deref().unwrap_or("<anonymous>"))
            }
            Type::Enum(name, _) => write!(f, "enum {}", name.as_deref().unwrap_or("<anonymous>")),
            Type::Function(func) => {
                write!(f, "{} (", func.ret)?;
                for (i, p) in func.params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_str(")")
            }
            Type::Image(k) => f.write_str(k.name()),
            Type::Sampler => f.write_str("sampler_t"),
            Type::Event => f.write_str("event_t"),
        }
    }
}

impl fmt::Display for QualType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.space != AddressSpace::Private {
            write!(f, "{} ", self.space.name())?;
        }
        if self.quals.is_const {
            f.write_str("const ")?;
        }
        if self.quals.is_volatile {
            f.write_str("volatile ")?;
        }
        write!(f, "{}", self.ty)?;
        if self.quals.is_restrict {
            f.write_str(" restrict")?;
        }
        Ok(())
    }
}

/// Why two operands have no common type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConversionError {
    /// Two vectors of different types ("no implicit conversions between vector types").
    VectorMismatch,
    /// A scalar of higher rank than the vector's elements (6.2.6).
    ScalarRankTooHigh,
    /// Not arithmetic types at all.
    NotArithmetic,
}

/// The common type of a binary arithmetic operation (OpenCL 1.2 section 6.2.6).
///
/// `scalar_fits` says, for a scalar operand meeting a vector, whether the scalar is a
/// constant whose value the vector's element type represents: clang accepts `int4 + 0U`
/// that way (the footnote of 6.2.6 calls it legal), although `uint` outranks `int`.
pub fn usual_arithmetic_conversion(
    lhs: &Type,
    rhs: &Type,
    scalar_fits: impl Fn(&Type, Scalar) -> bool,
) -> Result<Type, ConversionError> {
    match (lhs, rhs) {
        (Type::Vector(a, n), Type::Vector(b, m)) => {
            if a == b && n == m {
                Ok(lhs.clone())
            } else {
                Err(ConversionError::VectorMismatch)
            }
        }
        (Type::Vector(elem, _), other) | (other, Type::Vector(elem, _)) => {
            let s = other.scalar().ok_or(ConversionError::NotArithmetic)?;
            if s.rank() > elem.rank() && !scalar_fits(other, *elem) {
                return Err(ConversionError::ScalarRankTooHigh);
            }
            Ok(if lhs.is_vector() {
                lhs.clone()
            } else {
                rhs.clone()
            })
        }
        _ => {
            let a = lhs.scalar().ok_or(ConversionError::NotArithmetic)?;
            let b = rhs.scalar().ok_or(ConversionError::NotArithmetic)?;
            Ok(Type::Scalar(c99_common_scalar(a, b)))
        }
    }
}

/// C99 6.3.1.8 for two scalars: a float type wins (the wider one); otherwise both are
/// promoted, and the integer rules decide between signed and unsigned.
pub fn c99_common_scalar(a: Scalar, b: Scalar) -> Scalar {
    if a.is_float() || b.is_float() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    unpromoted_common_scalar(a.promoted(), b.promoted())
}

/// The usual arithmetic conversions of two scalars WITHOUT the integer promotions: the type
/// of `v ? a : b` where `v` is a vector and `a`, `b` are scalars, which are then widened to
/// vectors. OpenCL 1.2 §6.3.i requires that result to have the condition's element size, so
/// `char2 ? char : char` must be a `char2`, not an `int2`; clang's
/// `OpenCLArithmeticConversions` does the same ("no other type promotion is allowed").
pub fn unpromoted_common_scalar(a: Scalar, b: Scalar) -> Scalar {
    if a.is_float() || b.is_float() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    if a == b {
        return a;
    }
    if a.is_signed() == b.is_signed() {
        return if a.size() >= b.size() { a } else { b };
    }
    let (signed, unsigned) = if a.is_signed() { (a, b) } else { (b, a) };
    if unsigned.size() >= signed.size() {
        unsigned
    } else if signed.size() > unsigned.size() {
        // The signed type can represent every value of the narrower unsigned one.
        signed
    } else {
        signed.unsigned_counterpart()
    }
}

/// The type of a comparison or logical operator's result: `int` for scalars; for vectors,
/// the signed integer vector with elements as wide as the operands' (6.3.d–g).
pub fn comparison_result(operand: &Type) -> Type {
    match operand {
        Type::Vector(elem, n) => Type::Vector(elem.signed_counterpart(), *n),
        _ => Type::int(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: Scalar, n: u8) -> Type {
        Type::Vector(s, n)
    }
    fn s(s: Scalar) -> Type {
        Type::Scalar(s)
    }
    fn never(_: &Type, _: Scalar) -> bool {
        false
    }

    #[test]
    fn vector_names_widths_and_sizes() {
        assert_eq!(Type::vector_from_name("float4"), Some(v(Scalar::Float, 4)));
        assert_eq!(
            Type::vector_from_name("uchar16"),
            Some(v(Scalar::UChar, 16))
        );
        assert_eq!(Type::vector_from_name("int5"), None);
        assert_eq!(Type::vector_from_name("bool2"), None);
        assert_eq!(Type::vector_from_name("float"), None);
        // "a vector of 3 elements has the size and alignment of a vector of 4" (6.1.5).
        assert_eq!(v(Scalar::Float, 3).size(), 16);
        assert_eq!(v(Scalar::Float, 3).align(), 16);
        assert_eq!(v(Scalar::Float, 3).vec_step(), 4);
        assert_eq!(v(Scalar::Long, 16).size(), 128);
        assert_eq!(v(Scalar::Char, 2).align(), 2);
    }

    #[test]
    fn struct_layout_follows_c_with_vector_alignment() {
        let members = vec![
            ("a".into(), QualType::new(s(Scalar::Char))),
            ("b".into(), QualType::new(v(Scalar::Float, 4))),
            ("c".into(), QualType::new(s(Scalar::Short))),
        ];
        let r = Record::layout(Some("S".into()), false, members.clone(), false, 1);
        let offsets: Vec<u64> = r.fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [0, 16, 32]);
        assert_eq!((r.size, r.align), (48, 16));
        let packed = Record::layout(None, false, members.clone(), true, 1);
        assert_eq!(packed.fields[1].offset, 1);
        assert_eq!(packed.size, 19);
        let union = Record::layout(None, true, members, false, 1);
        assert_eq!((union.size, union.align), (16, 16));
        let aligned = Record::layout(
            None,
            false,
            vec![("x".into(), QualType::new(s(Scalar::Int)))],
            false,
            32,
        );
        assert_eq!((aligned.size, aligned.align), (32, 32));
    }

    #[test]
    fn scalar_arithmetic_follows_c99() {
        assert_eq!(c99_common_scalar(Scalar::Char, Scalar::Short), Scalar::Int);
        assert_eq!(c99_common_scalar(Scalar::Int, Scalar::UInt), Scalar::UInt);
        assert_eq!(c99_common_scalar(Scalar::UInt, Scalar::Long), Scalar::Long);
        assert_eq!(
            c99_common_scalar(Scalar::Long, Scalar::ULong),
            Scalar::ULong
        );
        assert_eq!(
            c99_common_scalar(Scalar::ULong, Scalar::Float),
            Scalar::Float
        );
        assert_eq!(
            c99_common_scalar(Scalar::Float, Scalar::Double),
            Scalar::Double
        );
        assert_eq!(c99_common_scalar(Scalar::Half, Scalar::Int), Scalar::Half);
        assert_eq!(c99_common_scalar(Scalar::Bool, Scalar::Bool), Scalar::Int);
    }

    #[test]
    fn vectors_do_not_mix_and_scalars_widen_by_rank() {
        let f4 = v(Scalar::Float, 4);
        assert_eq!(usual_arithmetic_conversion(&f4, &f4, never), Ok(f4.clone()));
        assert_eq!(
            usual_arithmetic_conversion(&f4, &v(Scalar::Int, 4), never),
            Err(ConversionError::VectorMismatch)
        );
        assert_eq!(
            usual_arithmetic_conversion(&f4, &v(Scalar::Float, 2), never),
            Err(ConversionError::VectorMismatch)
        );
        assert_eq!(
            usual_arithmetic_conversion(&s(Scalar::Int), &f4, never),
            Ok(f4.clone())
        );
        assert_eq!(
            usual_arithmetic_conversion(&f4, &s(Scalar::Double), never),
            Err(ConversionError::ScalarRankTooHigh)
        );
        // "short8 + char returns short8" under OpenCL's rules (no integer promotion).
        let s8 = v(Scalar::Short, 8);
        assert_eq!(
            usual_arithmetic_conversion(&s8, &s(Scalar::Char), never),
            Ok(s8)
        );
        // "int4 + 0U is legal and returns int4": a constant the element type represents.
        let i4 = v(Scalar::Int, 4);
        assert_eq!(
            usual_arithmetic_conversion(&i4, &s(Scalar::UInt), |_, _| true),
            Ok(i4.clone())
        );
        assert_eq!(
            usual_arithmetic_conversion(&i4, &s(Scalar::UInt), never),
            Err(ConversionError::ScalarRankTooHigh)
        );
    }

    #[test]
    fn comparisons_give_signed_masks_of_the_element_width() {
        assert_eq!(comparison_result(&v(Scalar::Float, 4)), v(Scalar::Int, 4));
        assert_eq!(
            comparison_result(&v(Scalar::UChar, 16)),
            v(Scalar::Char, 16)
        );
        assert_eq!(comparison_result(&v(Scalar::Double, 2)), v(Scalar::Long, 2));
        assert_eq!(
            comparison_result(&v(Scalar::UShort, 8)),
            v(Scalar::Short, 8)
        );
        assert_eq!(comparison_result(&s(Scalar::Double)), s(Scalar::Int));
    }

    #[test]
    fn display_spells_types_as_opencl_does() {
        let p = Type::Pointer(Box::new(QualType {
            ty: v(Scalar::Float, 4),
            quals: Qualifiers {
                is_const: true,
                ..Default::default()
            },
            space: AddressSpace::Global,
        }));
        assert_eq!(p.to_string(), "__global const float4 *");
    }
}
