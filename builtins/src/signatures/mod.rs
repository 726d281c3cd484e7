//! Builtin overloads, expanded from [`table::TABLE`] at first use.
//!
//! The table is written once, in the specification's notation; this module instantiates each
//! line over its family of types, vector widths, rounding suffixes and address spaces, and
//! files every concrete overload under its name, with the builtin's id and attributes
//! ([`builtin`]). The compiler's overload resolution and the tests both read the same
//! expansion.

pub mod builtin;
mod table;

pub use builtin::{Attributes, Builtin, BuiltinId, Function};

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::convert::Rounding;
use crate::types::{BType, Scalar, Space};

/// The extensions an overload needs before a program may call it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Requires {
    /// Uses `double` (`cl_khr_fp64`).
    pub fp64: bool,
    /// Uses `half` values, not just `half` pointers (`cl_khr_fp16`).
    pub fp16: bool,
    /// 64-bit atomics (`cl_khr_int64_base_atomics` / `_extended_atomics`).
    pub int64_atomics: bool,
}

/// One concrete overload of a builtin.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    pub ret: BType,
    pub params: Vec<BType>,
    pub requires: Requires,
}

/// The overloads of the builtin called `name` (empty when there is no such builtin).
pub fn overloads(name: &str) -> &'static [Signature] {
    BuiltinId::lookup(name).map_or(&[], overloads_of)
}

/// The overloads of a builtin (empty for those resolved by rule, such as `printf`).
pub fn overloads_of(id: BuiltinId) -> &'static [Signature] {
    &expanded().overloads[id.0 as usize]
}

/// Every builtin name in the table.
pub fn names() -> impl Iterator<Item = &'static str> {
    let e = expanded();
    e.builtins
        .iter()
        .zip(&e.overloads)
        .filter(|(_, o)| !o.is_empty())
        .map(|(b, _)| b.name.as_str())
}

/// The table, expanded: every builtin name with its id, what the id stands for, and its
/// overloads (indexed by id).
struct Expanded {
    ids: HashMap<String, BuiltinId>,
    builtins: Vec<Builtin>,
    overloads: Vec<Vec<Signature>>,
}

impl Expanded {
    /// The id of `name`, added with `builtin` if it is new; an error if the name was seen
    /// with other attributes.
    fn add(&mut self, builtin: Builtin) -> Result<BuiltinId, String> {
        if let Some(&id) = self.ids.get(&builtin.name) {
            let known = &self.builtins[id.0 as usize];
            if known.attributes != builtin.attributes {
                return Err(format!("'{}' with two sets of attributes", builtin.name));
            }
            return Ok(id);
        }
        let id = BuiltinId(u16::try_from(self.builtins.len()).map_err(|_| "too many builtins")?);
        self.ids.insert(builtin.name.clone(), id);
        self.builtins.push(builtin);
        self.overloads.push(Vec::new());
        Ok(id)
    }
}

fn expanded() -> &'static Expanded {
    static EXPANDED: OnceLock<Expanded> = OnceLock::new();
    EXPANDED.get_or_init(|| expand().unwrap_or_else(|e| panic!("builtin table: {e}")))
}

fn expand() -> Result<Expanded, String> {
    let mut e = Expanded {
        ids: HashMap::new(),
        builtins: Vec::new(),
        overloads: Vec::new(),
    };
    let mut attributes = None;
    for line in table::TABLE.lines().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        if line.starts_with('#') {
            // A comment or a section: what follows states its attributes again.
            attributes = None;
            continue;
        }
        if let Some(words) = line.strip_prefix('@') {
            attributes = Some(Attributes::parse(words).map_err(|m| format!("{m}: {line}"))?);
            continue;
        }
        let attributes = attributes.ok_or_else(|| format!("no attributes above: {line}"))?;
        let pattern = Pattern::parse(line).map_err(|m| format!("{m}: {line}"))?;
        let function = Function::from_name(&pattern.name.replace("{N}", "").replace("{R}", ""))
            .ok_or_else(|| format!("no Function for: {line}"))?;
        for (name, signature, width, rounding) in pattern.instantiate() {
            let id = e.add(Builtin {
                name,
                function,
                width,
                rounding,
                attributes,
            })?;
            let list = &mut e.overloads[id.0 as usize];
            if !list.contains(&signature) {
                list.push(signature);
            }
        }
    }
    for (function, words) in builtin::BY_RULE {
        e.add(Builtin {
            name: function.name().to_string(),
            function,
            width: None,
            rounding: Rounding::Default,
            attributes: Attributes::parse(words)?,
        })?;
    }
    Ok(e)
}

const WIDTHS: [u8; 5] = [2, 3, 4, 8, 16];
const ALL_LANES: [u8; 6] = [1, 2, 3, 4, 8, 16];
const ROUNDINGS: [&str; 5] = ["", "_rte", "_rtz", "_rtp", "_rtn"];
const INTEGERS: [Scalar; 8] = [
    Scalar::Char,
    Scalar::UChar,
    Scalar::Short,
    Scalar::UShort,
    Scalar::Int,
    Scalar::UInt,
    Scalar::Long,
    Scalar::ULong,
];
const FLOATS: [Scalar; 3] = [Scalar::Half, Scalar::Float, Scalar::Double];

/// The element types and lane counts a family ranges over.
fn family(name: &str) -> Option<(Vec<Scalar>, Vec<u8>)> {
    let numbers: Vec<Scalar> = INTEGERS.iter().chain(FLOATS.iter()).copied().collect();
    Some(match name {
        "F" => (FLOATS.to_vec(), ALL_LANES.to_vec()),
        "Fn" => (FLOATS.to_vec(), WIDTHS.to_vec()),
        "Ff" => (vec![Scalar::Float], ALL_LANES.to_vec()),
        "Ffn" => (vec![Scalar::Float], WIDTHS.to_vec()),
        "F4" => (FLOATS.to_vec(), vec![1, 2, 3, 4]),
        "F4f" => (vec![Scalar::Float], vec![1, 2, 3, 4]),
        "I" => (INTEGERS.to_vec(), ALL_LANES.to_vec()),
        "In" => (INTEGERS.to_vec(), WIDTHS.to_vec()),
        "Iup" => (INTEGERS[..6].to_vec(), ALL_LANES.to_vec()),
        "I32" => (vec![Scalar::Int, Scalar::UInt], ALL_LANES.to_vec()),
        "Ki" => (
            vec![Scalar::Char, Scalar::Short, Scalar::Int, Scalar::Long],
            ALL_LANES.to_vec(),
        ),
        "G" => (numbers, ALL_LANES.to_vec()),
        "Gn" => (numbers, WIDTHS.to_vec()),
        "Sv" => (numbers, vec![1]),
        "A32" => (vec![Scalar::Int, Scalar::UInt], vec![1]),
        "A64" => (vec![Scalar::Long, Scalar::ULong], vec![1]),
        _ => return None,
    })
}

/// What a line is instantiated with.
#[derive(Clone, Copy)]
struct Binding {
    element: Scalar,
    lanes: u8,
    n: u8,
    space: Space,
}

/// A type as written in the table.
#[derive(Clone, Debug)]
enum TypeExpr {
    /// A type derived from the binding (`F`, `S`, `U`, ...), possibly with `{N}` lanes.
    Derived { form: String, with_n: bool },
    /// A type named outright (`int`, `float4`, `event_t`, ...), possibly with `{N}` lanes.
    Named { name: String, with_n: bool },
    Pointer {
        pointee: Box<TypeExpr>,
        space: SpaceExpr,
        is_const: bool,
        is_volatile: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SpaceExpr {
    Fixed(Space),
    /// global, local, private.
    AnySpace,
    /// global, local, private, constant.
    AnyRead,
}

struct Pattern {
    name: String,
    ret: TypeExpr,
    params: Vec<TypeExpr>,
    family: Option<String>,
}

/// The derived forms a family binding provides.
const DERIVED: [&str; 8] = ["S", "U", "K", "Ku", "iN", "R", "W", "Sv"];

impl Pattern {
    /// `<ret> <name>(<param>, ...)`.
    fn parse(line: &str) -> Result<Pattern, String> {
        let open = line.find('(').ok_or("no '('")?;
        let close = line.rfind(')').ok_or("no ')'")?;
        let head = line[..open].trim();
        let split = head.rfind(' ').ok_or("no result type")?;
        let (ret, name) = (head[..split].trim(), head[split + 1..].trim());
        let params_text = line[open + 1..close].trim();
        let mut family_name = None;
        let mut parse_type = |text: &str| parse_type_expr(text, &mut family_name);
        let ret = parse_type(ret)?;
        let params = if params_text.is_empty() {
            Vec::new()
        } else {
            params_text
                .split(',')
                .map(|p| parse_type(p.trim()))
                .collect::<Result<_, _>>()?
        };
        Ok(Pattern {
            name: name.to_string(),
            ret,
            params,
            family: family_name,
        })
    }

    /// Every concrete overload of the line, with its name, its `{N}` and its `{R}`.
    fn instantiate(&self) -> Vec<(String, Signature, Option<u8>, Rounding)> {
        let (elements, lanes) = self
            .family
            .as_deref()
            .and_then(family)
            .unwrap_or((vec![Scalar::Int], vec![1]));
        let uses_n = self.name.contains("{N}")
            || self.any_type(&|t| {
                matches!(
                    t,
                    TypeExpr::Derived { with_n: true, .. } | TypeExpr::Named { with_n: true, .. }
                )
            });
        let ns: &[u8] = if uses_n { &WIDTHS } else { &[1] };
        let roundings: &[&str] = if self.name.contains("{R}") {
            &ROUNDINGS
        } else {
            &[""]
        };
        let spaces: &[Space] = if self.any_type(&|t| {
            matches!(
                t,
                TypeExpr::Pointer {
                    space: SpaceExpr::AnyRead,
                    ..
                }
            )
        }) {
            &[Space::Global, Space::Local, Space::Private, Space::Constant]
        } else if self.any_type(&|t| {
            matches!(
                t,
                TypeExpr::Pointer {
                    space: SpaceExpr::AnySpace,
                    ..
                }
            )
        }) {
            &[Space::Global, Space::Local, Space::Private]
        } else {
            &[Space::Global]
        };
        // The names depend on N and the rounding only: made once each, not per type (the
        // table's expansion is part of a process's first build).
        let names: Vec<Vec<String>> = ns
            .iter()
            .map(|n| {
                let name = self.name.replace("{N}", &n.to_string());
                roundings.iter().map(|r| name.replace("{R}", r)).collect()
            })
            .collect();
        let mut out = Vec::new();
        for &element in &elements {
            for &lane in &lanes {
                for (&n, names) in ns.iter().zip(&names) {
                    for (&rounding, name) in roundings.iter().zip(names) {
                        for &space in spaces {
                            let b = Binding {
                                element,
                                lanes: lane,
                                n,
                                space,
                            };
                            let name = name.clone();
                            let ret = resolve(&self.ret, b);
                            let params: Vec<BType> =
                                self.params.iter().map(|p| resolve(p, b)).collect();
                            let requires = requirements(&name, &ret, &params);
                            let width = self.name.contains("{N}").then_some(n);
                            let rounding =
                                Rounding::from_suffix(rounding).unwrap_or(Rounding::Default);
                            out.push((
                                name,
                                Signature {
                                    ret,
                                    params,
                                    requires,
                                },
                                width,
                                rounding,
                            ));
                        }
                    }
                }
            }
        }
        out
    }

    fn any_type(&self, test: &dyn Fn(&TypeExpr) -> bool) -> bool {
        fn walk(t: &TypeExpr, test: &dyn Fn(&TypeExpr) -> bool) -> bool {
            test(t) || matches!(t, TypeExpr::Pointer { pointee, .. } if walk(pointee, test))
        }
        walk(&self.ret, test) || self.params.iter().any(|p| walk(p, test))
    }
}

/// Parses one type of the table, noting the family it names (at most one per line).
fn parse_type_expr(text: &str, family_name: &mut Option<String>) -> Result<TypeExpr, String> {
    if let Some(pointee) = text.strip_suffix('*') {
        let mut words: Vec<&str> = pointee.split_whitespace().collect();
        let is_const = words.first() == Some(&"const");
        if is_const {
            words.remove(0);
        }
        let is_volatile = words.first() == Some(&"volatile");
        if is_volatile {
            words.remove(0);
        }
        let [space, inner] = words[..] else {
            return Err(format!("bad pointer type '{text}'"));
        };
        let space = match space {
            "global" => SpaceExpr::Fixed(Space::Global),
            "local" => SpaceExpr::Fixed(Space::Local),
            "private" => SpaceExpr::Fixed(Space::Private),
            "constant" => SpaceExpr::Fixed(Space::Constant),
            "anyspace" => SpaceExpr::AnySpace,
            "anyread" => SpaceExpr::AnyRead,
            other => return Err(format!("unknown address space '{other}'")),
        };
        let pointee = Box::new(parse_type_expr(inner, family_name)?);
        return Ok(TypeExpr::Pointer {
            pointee,
            space,
            is_const,
            is_volatile,
        });
    }
    let (base, with_n) = match text.strip_suffix("{N}") {
        Some(base) => (base, true),
        None => (text, false),
    };
    if family(base).is_some() {
        if family_name.as_deref().is_some_and(|f| f != base) {
            return Err(format!("two families on one line ('{base}')"));
        }
        *family_name = Some(base.to_string());
        return Ok(TypeExpr::Derived {
            form: "=".into(),
            with_n,
        });
    }
    if DERIVED.contains(&base) {
        return Ok(TypeExpr::Derived {
            form: base.to_string(),
            with_n,
        });
    }
    if named_type(base, 1).is_none() {
        return Err(format!("unknown type '{base}'"));
    }
    Ok(TypeExpr::Named {
        name: base.to_string(),
        with_n,
    })
}

/// A type written by name: the scalars, `size_t`, vector names, `void`, `event_t`.
fn named_type(name: &str, n: u8) -> Option<BType> {
    let scalar = match name {
        "size_t" => Some(Scalar::ULong),
        other => Scalar::from_name(other),
    };
    if let Some(s) = scalar {
        return Some(BType::of(s, n));
    }
    match name {
        "void" => return Some(BType::Void),
        "event_t" => return Some(BType::Event),
        "sampler_t" => return Some(BType::Sampler),
        _ => {}
    }
    if let Some(kind) = crate::types::ImageKind::from_name(name) {
        return Some(BType::Image(kind));
    }
    let digits = name.find(|c: char| c.is_ascii_digit())?;
    let element = Scalar::from_name(&name[..digits])?;
    let lanes: u8 = name[digits..].parse().ok()?;
    WIDTHS
        .contains(&lanes)
        .then_some(BType::Vector(element, lanes))
}

fn resolve(t: &TypeExpr, b: Binding) -> BType {
    match t {
        TypeExpr::Named { name, with_n } => {
            named_type(name, if *with_n { b.n } else { 1 }).unwrap_or(BType::Void)
        }
        TypeExpr::Derived { form, with_n } => {
            let lanes = if *with_n { b.n } else { b.lanes };
            let e = b.element;
            match form.as_str() {
                "=" => BType::of(e, lanes),
                "S" | "Sv" => BType::of(e, if *with_n { b.n } else { 1 }),
                "U" | "Ku" => BType::of(e.unsigned_counterpart(), lanes),
                "K" => BType::of(e.signed_counterpart(), lanes),
                "iN" => BType::of(Scalar::Int, lanes),
                "R" if lanes == 1 => BType::Scalar(Scalar::Int),
                "R" => BType::of(e.signed_counterpart(), lanes),
                "W" => BType::of(widened(e), lanes),
                _ => BType::Void,
            }
        }
        TypeExpr::Pointer {
            pointee,
            space,
            is_const,
            is_volatile,
        } => BType::Pointer {
            pointee: Box::new(resolve(pointee, b)),
            space: match space {
                SpaceExpr::Fixed(s) => *s,
                SpaceExpr::AnySpace | SpaceExpr::AnyRead => b.space,
            },
            is_const: *is_const,
            is_volatile: *is_volatile,
        },
    }
}

/// The integer type twice as wide, same signedness (`upsample`'s result).
fn widened(s: Scalar) -> Scalar {
    match s {
        Scalar::Char => Scalar::Short,
        Scalar::UChar => Scalar::UShort,
        Scalar::Short => Scalar::Int,
        Scalar::UShort => Scalar::UInt,
        Scalar::Int => Scalar::Long,
        _ => Scalar::ULong,
    }
}

/// The extensions a concrete overload needs.
fn requirements(name: &str, ret: &BType, params: &[BType]) -> Requires {
    let mut r = Requires::default();
    for t in std::iter::once(ret).chain(params) {
        let (value, behind_pointer) = match t {
            BType::Pointer { pointee, .. } => (&**pointee, true),
            other => (other, false),
        };
        match value.element() {
            Some(Scalar::Double) => r.fp64 = true,
            Some(Scalar::Half) if !behind_pointer => r.fp16 = true,
            Some(Scalar::Long | Scalar::ULong) if behind_pointer && name.starts_with("atom_") => {
                r.int64_atomics = true;
            }
            _ => {}
        }
    }
    r
}

#[cfg(test)]
mod tests;
