//! ABI classes of C and Rust types: what must agree for a Rust declaration to stand in for a C
//! one at the binary interface (size, alignment, and integer / float / pointer), and the
//! C struct layout rules to compute offsets with them.
//!
//! Rust types are read from `core::any::type_name`, whose format is not guaranteed: if it ever
//! changes, these tests fail (unknown type name), they do not pass by accident.

use std::collections::{HashMap, HashSet};

use super::eval::CType;
use super::header::{Field, Scan};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    Void,
    Int(CType),
    Float(u32),
    /// Data or function pointer (also `Option<fn>`, which Rust guarantees is one).
    Pointer,
}

/// Bytes of a pointer, `size_t` and `intptr_t` on the target the tests run on.
const PTR: u32 = size_of::<usize>() as u32;

impl Abi {
    pub fn size(self) -> usize {
        match self {
            Abi::Void => 0,
            Abi::Int(t) => t.bytes as usize,
            Abi::Float(bytes) => bytes as usize,
            Abi::Pointer => PTR as usize,
        }
    }

    /// On the targets the driver supports (LP64 Linux: x86-64, AArch64) every scalar is
    /// aligned to its size.
    pub fn align(self) -> usize {
        self.size().max(1)
    }
}

fn int(bytes: u32, signed: bool) -> Abi {
    Abi::Int(CType::new(bytes, signed))
}

/// C types the headers use without defining them. `cl_platform.h` defines the `cl_` scalars
/// per compiler and platform (`typedef int32_t cl_int;`, `typedef signed __int32 cl_int;`, ...),
/// always with the width the OpenCL specification fixes, so they are listed with that width.
fn builtin(name: &str) -> Option<Abi> {
    Some(match name {
        "cl_char" | "int8_t" | "char" | "signed char" => int(1, true),
        "cl_uchar" | "uint8_t" | "unsigned char" => int(1, false),
        "cl_short" | "int16_t" | "short" => int(2, true),
        "cl_ushort" | "cl_half" | "uint16_t" | "unsigned short" => int(2, false),
        "cl_int" | "int32_t" | "int" => int(4, true),
        "cl_uint" | "uint32_t" | "unsigned int" | "unsigned" => int(4, false),
        "cl_long" | "int64_t" | "long" | "long long" => int(8, true),
        "cl_ulong" | "uint64_t" | "unsigned long" | "unsigned long long" => int(8, false),
        "size_t" | "uintptr_t" => int(PTR, false),
        "intptr_t" | "ptrdiff_t" => int(PTR, true),
        "cl_float" | "float" => Abi::Float(4),
        "cl_double" | "double" => Abi::Float(8),
        "void" => Abi::Void,
        _ => return None,
    })
}

/// The type names a set of headers defines.
pub struct CTypes {
    typedefs: HashMap<String, String>,
    pointers: HashSet<String>,
}

impl CTypes {
    /// From the one-line typedefs of `scans` (the first definition of a name wins) and the names
    /// of function-pointer typedefs, which are pointers whatever their prototype.
    pub fn new(scans: &[&Scan], function_pointers: impl IntoIterator<Item = String>) -> CTypes {
        let mut typedefs = HashMap::new();
        for t in scans.iter().flat_map(|s| &s.typedefs) {
            typedefs
                .entry(t.name.clone())
                .or_insert_with(|| t.target.clone());
        }
        CTypes {
            typedefs,
            pointers: function_pointers.into_iter().collect(),
        }
    }

    pub fn abi(&self, ty: &str) -> Result<Abi, String> {
        let mut name = ty.to_string();
        for _ in 0..32 {
            if name.contains(['*', '[', '(']) {
                return Ok(Abi::Pointer);
            }
            name = name
                .split_whitespace()
                .filter(|w| !matches!(*w, "const" | "volatile"))
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(abi) = builtin(&name) {
                return Ok(abi);
            }
            if self.pointers.contains(&name) {
                return Ok(Abi::Pointer);
            }
            match self.typedefs.get(&name) {
                Some(target) => name.clone_from(target),
                None => return Err(format!("unknown C type `{name}` (in `{ty}`)")),
            }
        }
        Err(format!("typedef loop at `{ty}`"))
    }

    /// The integer type `name` stands for, for casts in constant expressions.
    pub fn int_type(&self, name: &str) -> Option<CType> {
        match self.abi(name) {
            Ok(Abi::Int(t)) => Some(t),
            _ => None,
        }
    }
}

/// The ABI class of a Rust type, given its `type_name`.
pub fn rust_abi(name: &str) -> Result<Abi, String> {
    Ok(match name.trim() {
        "()" => Abi::Void,
        "i8" => int(1, true),
        "u8" => int(1, false),
        "i16" => int(2, true),
        "u16" => int(2, false),
        "i32" => int(4, true),
        "u32" => int(4, false),
        "i64" => int(8, true),
        "u64" => int(8, false),
        "isize" => int(PTR, true),
        "usize" => int(PTR, false),
        "f32" => Abi::Float(4),
        "f64" => Abi::Float(8),
        n if n.starts_with("*mut ") || n.starts_with("*const ") => Abi::Pointer,
        n if n.starts_with("core::option::Option<") && n.contains("fn(") => Abi::Pointer,
        n if n.starts_with("unsafe extern \"C\" fn(") => Abi::Pointer,
        other => return Err(format!("unknown Rust type `{other}`")),
    })
}

/// `(parameters, result)` of an `Option<unsafe extern "C" fn(..) -> R>` type name.
pub fn rust_signature(name: &str) -> Result<(Vec<Abi>, Abi), String> {
    let not_fn = || format!("`{name}` is not an Option<unsafe extern \"C\" fn>");
    let inner = name
        .strip_prefix("core::option::Option<")
        .and_then(|s| s.strip_suffix('>'))
        .and_then(|s| s.strip_prefix("unsafe extern \"C\" fn"))
        .ok_or_else(not_fn)?;
    let (params, tail) = split_call(inner)?;
    let result = match tail.trim().strip_prefix("->") {
        Some(r) => rust_abi(r)?,
        None if tail.trim().is_empty() => Abi::Void,
        None => return Err(not_fn()),
    };
    let params = params
        .iter()
        .map(|p| rust_abi(p))
        .collect::<Result<_, _>>()?;
    Ok((params, result))
}

/// `(parameters, result)` of `typedef R(CL_API_CALL *name)(params) ...`, as normalised by
/// [`super::header::function_pointer_typedefs`].
pub fn c_signature(decl: &str, types: &CTypes) -> Result<(Vec<Abi>, Abi), String> {
    let (result, after) = decl
        .strip_prefix("typedef")
        .and_then(|d| d.split_once("CL_API_CALL"))
        .and_then(|(r, a)| Some((r.trim_end().strip_suffix('(')?, a)))
        .ok_or_else(|| format!("not a CL_API_CALL typedef: `{decl}`"))?;
    let result = types.abi(result)?;
    // Skip `*name)` to reach the parameter list.
    let after = after
        .split_once(')')
        .map(|(_, a)| a.trim_start())
        .ok_or_else(|| format!("cannot read `{decl}`"))?;
    let (params, _) = split_call(after)?;
    if params.len() == 1 && params[0] == "void" {
        return Ok((Vec::new(), result));
    }
    let params = params
        .iter()
        .map(|p| c_param(p, types))
        .collect::<Result<_, _>>()?;
    Ok((params, result))
}

/// A C parameter declaration, named (`cl_uint num_entries`) or not (`cl_uint`).
fn c_param(p: &str, types: &CTypes) -> Result<Abi, String> {
    if p.contains(['*', '[', '(']) {
        return Ok(Abi::Pointer);
    }
    types.abi(p).or_else(|e| match p.trim().rsplit_once(' ') {
        Some((ty, _name)) => types.abi(ty),
        None => Err(e),
    })
}

/// Splits `(a, f(b, c), Option<d, e>) tail` into `["a", "f(b, c)", "Option<d, e>"]` and
/// `" tail"`, splitting only at top-level commas. `->` does not count as a closing `>`.
fn split_call(s: &str) -> Result<(Vec<String>, &str), String> {
    let body = s
        .strip_prefix('(')
        .ok_or_else(|| format!("expected `(` at `{s}`"))?;
    let mut depth = 0usize;
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev = ' ';
    for (i, c) in body.char_indices() {
        match c {
            '(' | '<' => depth += 1,
            '>' if prev == '-' => {}
            ')' | '>' if depth > 0 => depth -= 1,
            ')' => {
                if !current.trim().is_empty() {
                    parts.push(current.trim().to_string());
                }
                return Ok((parts, &body[i + 1..]));
            }
            ',' if depth == 0 => {
                parts.push(current.trim().to_string());
                current.clear();
                prev = c;
                continue;
            }
            _ => {}
        }
        current.push(c);
        prev = c;
    }
    Err(format!("unbalanced parentheses in `{s}`"))
}

/// Member offsets and total size of a C struct with `fields`, by the usual layout rules.
pub fn c_layout(fields: &[Field], types: &CTypes) -> Result<(Vec<(String, usize)>, usize), String> {
    let mut offset = 0usize;
    let mut align = 1;
    let mut offsets = Vec::new();
    for f in fields {
        let abi = types.abi(&f.c_type)?;
        offset = offset.next_multiple_of(abi.align());
        align = align.max(abi.align());
        offsets.push((f.name.clone(), offset));
        offset += abi.size();
    }
    Ok((offsets, offset.next_multiple_of(align)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::header;

    fn types() -> CTypes {
        let scan = header::scan(
            "typedef cl_uint cl_bool;\ntypedef cl_bool cl_flag;\n\
             typedef struct _cl_mem * cl_mem;\ntypedef intptr_t cl_prop;",
        )
        .unwrap();
        CTypes::new(&[&scan], ["cl_api_clX".to_string()])
    }

    #[test]
    fn resolves_c_types() {
        let t = types();
        assert_eq!(t.abi("cl_flag"), Ok(int(4, false)));
        assert_eq!(t.abi("const cl_flag"), Ok(int(4, false)));
        assert_eq!(t.abi("cl_mem"), Ok(Abi::Pointer));
        assert_eq!(t.abi("const cl_flag *"), Ok(Abi::Pointer));
        assert_eq!(t.abi("cl_api_clX"), Ok(Abi::Pointer));
        assert_eq!(t.abi("cl_prop"), Ok(int(PTR, true)));
        assert_eq!(t.abi("unsigned long"), Ok(int(8, false)));
        assert!(t.abi("cl_unknown").is_err());
        assert_eq!(t.int_type("cl_flag"), Some(CType::UINT));
        assert_eq!(t.int_type("cl_mem"), None);
    }

    #[test]
    fn reads_rust_signatures() {
        let name = std::any::type_name::<
            Option<
                unsafe extern "C" fn(
                    u32,
                    *mut core::ffi::c_void,
                    Option<unsafe extern "C" fn(*mut u8, usize) -> i32>,
                    isize,
                ) -> *mut u8,
            >,
        >();
        let (params, result) = rust_signature(name).unwrap();
        assert_eq!(
            params,
            [int(4, false), Abi::Pointer, Abi::Pointer, int(PTR, true)]
        );
        assert_eq!(result, Abi::Pointer);
        let void = std::any::type_name::<Option<unsafe extern "C" fn()>>();
        assert_eq!(rust_signature(void), Ok((vec![], Abi::Void)));
        assert!(rust_signature("u32").is_err());
    }

    #[test]
    fn reads_c_signatures() {
        let t = types();
        let decl = "typedef cl_int(CL_API_CALL *cl_api_clX)( cl_uint n, const cl_mem *m, \
                    void(CL_CALLBACK *pfn)(cl_mem, void *), size_t, cl_flag f) SFX";
        let (params, result) = c_signature(decl, &t).unwrap();
        assert_eq!(
            params,
            [
                int(4, false),
                Abi::Pointer,
                Abi::Pointer,
                int(PTR, false),
                int(4, false)
            ]
        );
        assert_eq!(result, int(4, true));
        // Line breaks in the header can leave a space after `(`.
        let none = "typedef void *( CL_API_CALL *cl_api_clY)(void) SFX";
        assert_eq!(c_signature(none, &t), Ok((vec![], Abi::Pointer)));
    }

    #[test]
    fn lays_out_c_structs() {
        let field = |name: &str, c_type: &str| Field {
            name: name.into(),
            c_type: c_type.into(),
        };
        let fields = [
            field("a", "cl_uint"),
            field("b", "size_t"),
            field("c", "cl_uint"),
        ];
        let (offsets, size) = c_layout(&fields, &types()).unwrap();
        let p = PTR as usize;
        assert_eq!(
            offsets,
            [
                ("a".to_string(), 0),
                ("b".to_string(), p),
                ("c".to_string(), 2 * p)
            ]
        );
        assert_eq!(size, 3 * p);
    }
}
