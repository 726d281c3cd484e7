//! What each builtin is, for the passes and the lowering: an id per builtin name
//! ([`BuiltinId`]), the function it is an instance of ([`Function`]: `vstore_half4_rtz` is
//! `vstore_half` with width 4 and rounding `_rtz`), and its [`Attributes`], written in the
//! table beside its signatures (`@ pure`, `@ reads`, ...).
//!
//! The compiler resolves a call to an id once, in semantic analysis; after that no pass
//! asks a builtin's name: they ask its attributes, or match its [`Function`].

use crate::convert::Rounding;

/// What a builtin does besides computing its result from its arguments. A line of the
/// table gets the attributes of the `@` line above it; a builtin is treated as varying
/// and as touching memory unless its attributes say otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attributes {
    /// `pure`: no effect, no memory read: the result depends only on the arguments (and,
    /// for a work-item query, on the work-item). A call may be moved, merged or dropped.
    pub pure: bool,
    /// `reads`: reads memory through a pointer or an image.
    pub reads_memory: bool,
    /// `writes`: writes memory (a pointer argument, an image, the printf buffer).
    pub writes_memory: bool,
    /// `query`: a work-item function (6.12.1), read from the work-item or work-group.
    pub work_item_query: bool,
    /// `sync`: orders memory between work-items (barriers, fences, waits).
    pub synchronizes: bool,
    /// `group`: a work-group synchronization point that every work-item of the group must
    /// reach: the barrier planner splits a kernel at it.
    pub group_barrier: bool,
    /// `varying`: the result or the effect differs between work-items even for equal
    /// arguments (the local and global ids, atomics).
    pub varying: bool,
    /// `vector`: the vectorizer has a form of it that works on several work-items at once.
    pub vector_form: bool,
}

impl Attributes {
    /// The attributes an `@` line of the table names (its words, after the `@`).
    pub(super) fn parse(words: &str) -> Result<Attributes, String> {
        let mut a = Attributes::default();
        for word in words.split_whitespace() {
            let flag = match word {
                "pure" => &mut a.pure,
                "reads" => &mut a.reads_memory,
                "writes" => &mut a.writes_memory,
                "query" => &mut a.work_item_query,
                "sync" => &mut a.synchronizes,
                "group" => &mut a.group_barrier,
                "varying" => &mut a.varying,
                "vector" => &mut a.vector_form,
                other => return Err(format!("unknown attribute '{other}'")),
            };
            *flag = true;
        }
        a.check()?;
        Ok(a)
    }

    /// The rules attributes obey together.
    pub fn check(self) -> Result<(), String> {
        let effects = self.reads_memory || self.writes_memory || self.synchronizes;
        if self.pure && effects {
            return Err("a pure builtin touches no memory and synchronizes nothing".into());
        }
        if self.group_barrier && !self.synchronizes {
            return Err("a work-group synchronization point synchronizes".into());
        }
        if self.synchronizes && !(self.reads_memory && self.writes_memory) {
            return Err("what synchronizes orders reads and writes: it reads and writes".into());
        }
        if self.work_item_query && !self.pure {
            return Err("a work-item query reads only the work-item: it is pure".into());
        }
        if !self.pure && !self.reads_memory && !self.writes_memory {
            return Err("a builtin is pure or touches memory".into());
        }
        Ok(())
    }

    /// Whether a call gives the same value in every work-item of a group when its
    /// arguments do: a pure builtin that is not `varying`. Anything else (an unknown
    /// builtin's default attributes included) is varying.
    pub fn uniform_with_uniform_arguments(self) -> bool {
        self.pure && !self.varying
    }
}

macro_rules! functions {
    ($($variant:ident = $name:literal,)*) => {
        /// A builtin function as the table writes it, before its widths (`{N}`) and rounding
        /// suffixes (`{R}`) are instantiated, and the builtins the compiler resolves by
        /// rule (`shuffle`, `shuffle2`, `printf`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Function {
            $($variant,)*
        }

        impl Function {
            /// Every function, in the table's order.
            pub const ALL: &[Function] = &[$(Function::$variant,)*];

            /// The name the table writes, without `{N}` and `{R}`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Function::$variant => $name,)*
                }
            }

            /// The function the table names `name` (without `{N}` and `{R}`).
            pub fn from_name(name: &str) -> Option<Function> {
                match name {
                    $($name => Some(Function::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

functions! {
    GetWorkDim = "get_work_dim",
    GetGlobalSize = "get_global_size",
    GetGlobalId = "get_global_id",
    GetLocalSize = "get_local_size",
    GetLocalId = "get_local_id",
    GetNumGroups = "get_num_groups",
    GetGroupId = "get_group_id",
    GetGlobalOffset = "get_global_offset",
    GetEnqueuedLocalSize = "get_enqueued_local_size",
    Acos = "acos",
    Acosh = "acosh",
    Acospi = "acospi",
    Asin = "asin",
    Asinh = "asinh",
    Asinpi = "asinpi",
    Atan = "atan",
    Atan2 = "atan2",
    Atanh = "atanh",
    Atanpi = "atanpi",
    Atan2pi = "atan2pi",
    Cbrt = "cbrt",
    Ceil = "ceil",
    Copysign = "copysign",
    Cos = "cos",
    Cosh = "cosh",
    Cospi = "cospi",
    Erfc = "erfc",
    Erf = "erf",
    Exp = "exp",
    Exp2 = "exp2",
    Exp10 = "exp10",
    Expm1 = "expm1",
    Fabs = "fabs",
    Fdim = "fdim",
    Floor = "floor",
    Fma = "fma",
    Fmax = "fmax",
    Fmin = "fmin",
    Fmod = "fmod",
    Fract = "fract",
    Frexp = "frexp",
    Hypot = "hypot",
    Ilogb = "ilogb",
    Ldexp = "ldexp",
    Lgamma = "lgamma",
    LgammaR = "lgamma_r",
    Log = "log",
    Log2 = "log2",
    Log10 = "log10",
    Log1p = "log1p",
    Logb = "logb",
    Mad = "mad",
    Maxmag = "maxmag",
    Minmag = "minmag",
    Modf = "modf",
    Nan = "nan",
    Nextafter = "nextafter",
    Pow = "pow",
    Pown = "pown",
    Powr = "powr",
    Remainder = "remainder",
    Remquo = "remquo",
    Rint = "rint",
    Rootn = "rootn",
    Round = "round",
    Rsqrt = "rsqrt",
    Sin = "sin",
    Sincos = "sincos",
    Sinh = "sinh",
    Sinpi = "sinpi",
    Sqrt = "sqrt",
    Tan = "tan",
    Tanh = "tanh",
    Tanpi = "tanpi",
    Tgamma = "tgamma",
    Trunc = "trunc",
    HalfCos = "half_cos",
    HalfDivide = "half_divide",
    HalfExp = "half_exp",
    HalfExp2 = "half_exp2",
    HalfExp10 = "half_exp10",
    HalfLog = "half_log",
    HalfLog2 = "half_log2",
    HalfLog10 = "half_log10",
    HalfPowr = "half_powr",
    HalfRecip = "half_recip",
    HalfRsqrt = "half_rsqrt",
    HalfSin = "half_sin",
    HalfSqrt = "half_sqrt",
    HalfTan = "half_tan",
    NativeCos = "native_cos",
    NativeDivide = "native_divide",
    NativeExp = "native_exp",
    NativeExp2 = "native_exp2",
    NativeExp10 = "native_exp10",
    NativeLog = "native_log",
    NativeLog2 = "native_log2",
    NativeLog10 = "native_log10",
    NativePowr = "native_powr",
    NativeRecip = "native_recip",
    NativeRsqrt = "native_rsqrt",
    NativeSin = "native_sin",
    NativeSqrt = "native_sqrt",
    NativeTan = "native_tan",
    Abs = "abs",
    AbsDiff = "abs_diff",
    AddSat = "add_sat",
    Hadd = "hadd",
    Rhadd = "rhadd",
    Clamp = "clamp",
    Clz = "clz",
    Ctz = "ctz",
    MadHi = "mad_hi",
    MadSat = "mad_sat",
    Max = "max",
    Min = "min",
    MulHi = "mul_hi",
    Rotate = "rotate",
    SubSat = "sub_sat",
    Upsample = "upsample",
    Popcount = "popcount",
    Mad24 = "mad24",
    Mul24 = "mul24",
    Degrees = "degrees",
    Mix = "mix",
    Radians = "radians",
    Step = "step",
    Smoothstep = "smoothstep",
    Sign = "sign",
    Cross = "cross",
    Dot = "dot",
    Distance = "distance",
    Length = "length",
    Normalize = "normalize",
    FastDistance = "fast_distance",
    FastLength = "fast_length",
    FastNormalize = "fast_normalize",
    Isequal = "isequal",
    Isnotequal = "isnotequal",
    Isgreater = "isgreater",
    Isgreaterequal = "isgreaterequal",
    Isless = "isless",
    Islessequal = "islessequal",
    Islessgreater = "islessgreater",
    Isfinite = "isfinite",
    Isinf = "isinf",
    Isnan = "isnan",
    Isnormal = "isnormal",
    Isordered = "isordered",
    Isunordered = "isunordered",
    Signbit = "signbit",
    Any = "any",
    All = "all",
    Bitselect = "bitselect",
    Select = "select",
    Vload = "vload",
    Vstore = "vstore",
    VloadHalf = "vload_half",
    VstoreHalf = "vstore_half",
    VloadaHalf = "vloada_half",
    VstoreaHalf = "vstorea_half",
    Barrier = "barrier",
    MemFence = "mem_fence",
    ReadMemFence = "read_mem_fence",
    WriteMemFence = "write_mem_fence",
    AsyncWorkGroupCopy = "async_work_group_copy",
    AsyncWorkGroupStridedCopy = "async_work_group_strided_copy",
    WaitGroupEvents = "wait_group_events",
    Prefetch = "prefetch",
    AtomicAdd = "atomic_add",
    AtomicSub = "atomic_sub",
    AtomicXchg = "atomic_xchg",
    AtomicInc = "atomic_inc",
    AtomicDec = "atomic_dec",
    AtomicCmpxchg = "atomic_cmpxchg",
    AtomicMin = "atomic_min",
    AtomicMax = "atomic_max",
    AtomicAnd = "atomic_and",
    AtomicOr = "atomic_or",
    AtomicXor = "atomic_xor",
    AtomAdd = "atom_add",
    AtomSub = "atom_sub",
    AtomXchg = "atom_xchg",
    AtomInc = "atom_inc",
    AtomDec = "atom_dec",
    AtomCmpxchg = "atom_cmpxchg",
    AtomMin = "atom_min",
    AtomMax = "atom_max",
    AtomAnd = "atom_and",
    AtomOr = "atom_or",
    AtomXor = "atom_xor",
    ReadImagef = "read_imagef",
    WriteImagef = "write_imagef",
    ReadImagei = "read_imagei",
    WriteImagei = "write_imagei",
    ReadImageui = "read_imageui",
    WriteImageui = "write_imageui",
    GetImageWidth = "get_image_width",
    GetImageChannelDataType = "get_image_channel_data_type",
    GetImageChannelOrder = "get_image_channel_order",
    GetImageHeight = "get_image_height",
    GetImageDepth = "get_image_depth",
    GetImageDim = "get_image_dim",
    GetImageArraySize = "get_image_array_size",
    Shuffle = "shuffle",
    Shuffle2 = "shuffle2",
    Printf = "printf",
}

/// The builtins resolved by rule rather than by the table, with their attributes.
pub(super) const BY_RULE: [(Function, &str); 3] = [
    (Function::Shuffle, "pure"),
    (Function::Shuffle2, "pure"),
    (Function::Printf, "writes"),
];

/// A builtin, by its full name (`vstore_half4_rtz`): what semantic analysis resolves a call
/// to, and what the typed tree holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BuiltinId(pub(super) u16);

/// What an id stands for.
#[derive(Clone, Debug)]
pub struct Builtin {
    pub name: String,
    pub function: Function,
    /// The `{N}` of the name (`vload4`: 4), if the table's name has one.
    pub width: Option<u8>,
    /// The `{R}` of the name (`vstore_half_rtz`: `Rtz`); `Default` without one.
    pub rounding: Rounding,
    pub attributes: Attributes,
}

impl BuiltinId {
    /// The builtin called `name`, if there is one (table or rule).
    pub fn lookup(name: &str) -> Option<BuiltinId> {
        super::expanded().ids.get(name).copied()
    }

    pub fn builtin(self) -> &'static Builtin {
        &super::expanded().builtins[self.0 as usize]
    }

    pub fn name(self) -> &'static str {
        &self.builtin().name
    }

    pub fn function(self) -> Function {
        self.builtin().function
    }

    pub fn attributes(self) -> Attributes {
        self.builtin().attributes
    }

    /// Every builtin.
    pub fn all() -> impl Iterator<Item = BuiltinId> {
        (0..super::expanded().builtins.len() as u16).map(BuiltinId)
    }
}

impl std::fmt::Display for BuiltinId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
