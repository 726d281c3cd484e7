//! The types builtin signatures are written in: the scalar types of OpenCL C (shared with
//! the compiler, which re-exports [`Scalar`]), and a small type language for parameters and
//! results ([`BType`]).

/// The built-in scalar types (OpenCL 1.2 table 6.1). `size_t`, `ptrdiff_t`, `intptr_t` and
/// `uintptr_t` are 64-bit on this device and are typedefs of `ulong`/`long`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
}

impl Scalar {
    pub const ALL: [Scalar; 12] = [
        Scalar::Bool,
        Scalar::Char,
        Scalar::UChar,
        Scalar::Short,
        Scalar::UShort,
        Scalar::Int,
        Scalar::UInt,
        Scalar::Long,
        Scalar::ULong,
        Scalar::Half,
        Scalar::Float,
        Scalar::Double,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    /// The scalar named `name` (`unsigned int` and friends are resolved by the declaration
    /// specifier logic, which maps them to these names).
    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Size in bytes (`bool` is one byte, as in clang's OpenCL ABI).
    pub fn size(self) -> u64 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort | Scalar::Half => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }

    pub fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    pub fn is_integer(self) -> bool {
        !self.is_float()
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::Float | Scalar::Double)
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char
                | Scalar::Short
                | Scalar::Int
                | Scalar::Long
                | Scalar::Half
                | Scalar::Float
                | Scalar::Double
        )
    }

    /// The signed integer type of the same size (for `-1/0` results of vector
    /// comparisons: "if the operands are floatn or intn or uintn the result is intn").
    pub fn signed_counterpart(self) -> Scalar {
        match self.size() {
            1 => Scalar::Char,
            2 => Scalar::Short,
            4 => Scalar::Int,
            _ => Scalar::Long,
        }
    }

    /// The unsigned integer type of the same size.
    pub fn unsigned_counterpart(self) -> Scalar {
        match self.size() {
            1 => Scalar::UChar,
            2 => Scalar::UShort,
            4 => Scalar::UInt,
            _ => Scalar::ULong,
        }
    }

    /// The conversion rank of OpenCL 1.2 section 6.2.6: floating types above integers (and
    /// wider floats above narrower), wider integers above narrower, unsigned above signed of
    /// the same width, `bool` lowest.
    pub fn rank(self) -> u32 {
        match self {
            Scalar::Bool => 0,
            Scalar::Char => 1,
            Scalar::UChar => 2,
            Scalar::Short => 3,
            Scalar::UShort => 4,
            Scalar::Int => 5,
            Scalar::UInt => 6,
            Scalar::Long => 7,
            Scalar::ULong => 8,
            Scalar::Half => 9,
            Scalar::Float => 10,
            Scalar::Double => 11,
        }
    }

    /// C99 6.3.1.1 integer promotions: types narrower than `int` become `int`.
    pub fn promoted(self) -> Scalar {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort => {
                Scalar::Int
            }
            other => other,
        }
    }
}

/// The address space a builtin's pointer parameter points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Private,
    Global,
    Local,
    Constant,
}

/// The image types of OpenCL 1.2 (6.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageKind {
    Image1d,
    Image1dArray,
    Image1dBuffer,
    Image2d,
    Image2dArray,
    Image3d,
}

impl ImageKind {
    pub const ALL: [ImageKind; 6] = [
        ImageKind::Image1d,
        ImageKind::Image1dArray,
        ImageKind::Image1dBuffer,
        ImageKind::Image2d,
        ImageKind::Image2dArray,
        ImageKind::Image3d,
    ];

    /// The type's name in OpenCL C.
    pub fn name(self) -> &'static str {
        match self {
            ImageKind::Image1d => "image1d_t",
            ImageKind::Image1dArray => "image1d_array_t",
            ImageKind::Image1dBuffer => "image1d_buffer_t",
            ImageKind::Image2d => "image2d_t",
            ImageKind::Image2dArray => "image2d_array_t",
            ImageKind::Image3d => "image3d_t",
        }
    }

    pub fn from_name(name: &str) -> Option<ImageKind> {
        ImageKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A parameter or result type of a builtin overload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BType {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u8),
    Pointer {
        pointee: Box<BType>,
        space: Space,
        is_const: bool,
        is_volatile: bool,
    },
    Event,
    Sampler,
    Image(ImageKind),
}

impl BType {
    /// The element scalar of a scalar or vector type.
    pub fn element(&self) -> Option<Scalar> {
        match self {
            BType::Scalar(s) | BType::Vector(s, _) => Some(*s),
            _ => None,
        }
    }

    /// Lanes of a vector (1 for everything else).
    pub fn lanes(&self) -> u8 {
        match self {
            BType::Vector(_, n) => *n,
            _ => 1,
        }
    }

    /// `element` with `lanes` lanes: a scalar for 1, a vector otherwise.
    pub fn of(element: Scalar, lanes: u8) -> BType {
        if lanes == 1 {
            BType::Scalar(element)
        } else {
            BType::Vector(element, lanes)
        }
    }
}

impl std::fmt::Display for BType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BType::Void => f.write_str("void"),
            BType::Scalar(s) => f.write_str(s.name()),
            BType::Vector(s, n) => write!(f, "{}{n}", s.name()),
            BType::Pointer {
                pointee,
                space,
                is_const,
                is_volatile,
            } => {
                let space = match space {
                    Space::Private => "__private",
                    Space::Global => "__global",
                    Space::Local => "__local",
                    Space::Constant => "__constant",
                };
                write!(
                    f,
                    "{}{}{space} {pointee} *",
                    if *is_volatile { "volatile " } else { "" },
                    if *is_const { "const " } else { "" }
                )
            }
            BType::Event => f.write_str("event_t"),
            BType::Sampler => f.write_str("sampler_t"),
            BType::Image(k) => f.write_str(k.name()),
        }
    }
}
