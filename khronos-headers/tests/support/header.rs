//! Reading the Khronos C headers as text: comments, line continuations, the `#if` nesting
//! around each `#define` and `typedef`, and the fields of a struct.
//!
//! This is not a C preprocessor. It records, for every definition, the conditional blocks it
//! sits in and the lowest OpenCL version those blocks require (`#ifdef CL_VERSION_2_0` → 2.0),
//! which is what the tests need to tell OpenCL 1.x definitions from later ones. Struct bodies
//! are read with every optional macro undefined (see [`struct_fields`]).

use std::path::{Path, PathBuf};

use super::eval::{self, CType, Env};

/// Where the headers are: `$KHRONOS_HEADERS_DIR` if set (to test against another copy of the
/// headers), else Debian's location.
pub fn header_dir() -> PathBuf {
    std::env::var_os("KHRONOS_HEADERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/include/CL"))
}

/// The text of `file` in [`header_dir`].
pub fn read_header(file: &str) -> String {
    read_header_in(&header_dir(), file)
}

/// The text of `dir/file`. Panics (so that the tests fail, rather than pass without checking
/// anything) if the headers are not installed.
pub fn read_header_in(dir: &Path, file: &str) -> String {
    let path = dir.join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}\nThese tests compare khronos-headers with the Khronos OpenCL C \
             headers. Install Debian's opencl-c-headers package (`apt-get install \
             opencl-c-headers`), or set KHRONOS_HEADERS_DIR to a directory that holds cl.h, \
             cl_ext.h and cl_icd.h.",
            path.display()
        )
    })
}

/// `src` with comments replaced by spaces, newlines kept so that line numbers stay right.
pub fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut quote = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('"' | '\'', _) => {
                quote = Some(c);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A source line after comment removal and splicing of `\`-continued lines.
#[derive(Clone, Debug)]
pub struct Line {
    /// 1-based number of its first physical line.
    pub number: usize,
    pub text: String,
}

pub fn logical_lines(src: &str) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    let mut continued = false;
    for (i, physical) in strip_comments(src).lines().enumerate() {
        let (text, continues) = match physical.trim_end().strip_suffix('\\') {
            Some(t) => (t, true),
            None => (physical, false),
        };
        match out.last_mut() {
            Some(last) if continued => {
                last.text.push(' ');
                last.text.push_str(text);
            }
            _ => out.push(Line {
                number: i + 1,
                text: text.to_string(),
            }),
        }
        continued = continues;
    }
    out
}

/// A preprocessor directive: `(keyword, rest)`, e.g. `("ifdef", "CL_VERSION_1_2")`.
pub fn directive(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    Some((&rest[..end], rest[end..].trim()))
}

/// An open conditional block.
#[derive(Clone, Debug)]
struct Frame {
    /// The directive of the branch we are in, for messages (`#ifdef CL_VERSION_2_0`, `#else`).
    text: String,
    /// The OpenCL version (major*100 + minor*10) that this branch requires, 0 if none.
    min_version: u32,
}

#[derive(Clone, Debug)]
pub struct Define {
    pub name: String,
    /// The replacement text, trimmed.
    pub body: String,
    /// `#define F(x) ...`: not a constant.
    pub function_like: bool,
    pub line: usize,
    /// The conditional blocks around it, outermost first.
    pub guards: Vec<String>,
    /// The highest OpenCL version any of those blocks requires (0: none).
    pub min_version: u32,
}

#[derive(Clone, Debug)]
pub struct Typedef {
    pub name: String,
    /// What it names, e.g. `cl_uint` or `struct _cl_mem *`.
    pub target: String,
    pub min_version: u32,
}

/// Every `#define` and one-line `typedef` of a header, in order.
#[derive(Debug, Default)]
pub struct Scan {
    pub defines: Vec<Define>,
    pub typedefs: Vec<Typedef>,
}

impl Scan {
    /// The first definition of `name` (the headers define a few names in several branches).
    pub fn define(&self, name: &str) -> Option<&Define> {
        self.defines.iter().find(|d| d.name == name)
    }
}

pub fn scan(src: &str) -> Result<Scan, String> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut out = Scan::default();
    for line in logical_lines(src) {
        let at = |msg: &str| format!("line {}: {msg}: {}", line.number, line.text.trim());
        let min_version = stack.iter().map(|f| f.min_version).max().unwrap_or(0);
        let Some((keyword, rest)) = directive(&line.text) else {
            if let Some(t) = one_line_typedef(&line.text) {
                out.typedefs.push(Typedef { min_version, ..t });
            }
            continue;
        };
        match keyword {
            "if" => stack.push(frame(&line.text, version_required(rest))),
            "ifdef" => stack.push(frame(
                &line.text,
                version_required(&format!("defined({rest})")),
            )),
            "ifndef" => stack.push(frame(&line.text, 0)),
            "elif" | "else" => {
                let top = stack
                    .last_mut()
                    .ok_or_else(|| at("#{keyword} without #if"))?;
                // The other branch of a version test requires no version.
                let required = if keyword == "elif" {
                    version_required(rest)
                } else {
                    0
                };
                *top = frame(&format!("{} / {}", top.text, line.text.trim()), required);
            }
            "endif" => {
                stack.pop().ok_or_else(|| at("#endif without #if"))?;
            }
            "define" => {
                let end = rest
                    .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .unwrap_or(rest.len());
                out.defines.push(Define {
                    name: rest[..end].to_string(),
                    body: rest[end..].trim().to_string(),
                    function_like: rest[end..].starts_with('('),
                    line: line.number,
                    guards: stack.iter().map(|f| f.text.clone()).collect(),
                    min_version,
                });
            }
            _ => {}
        }
    }
    match stack.last() {
        None => Ok(out),
        Some(f) => Err(format!("unterminated conditional `{}`", f.text)),
    }
}

fn frame(text: &str, min_version: u32) -> Frame {
    Frame {
        text: text.trim().to_string(),
        min_version,
    }
}

/// The OpenCL version an `#if` condition requires: `defined(CL_VERSION_2_0)` → 200,
/// `CL_TARGET_OPENCL_VERSION >= 220` → 220. Conditions this cannot read as a requirement
/// (negations, `||`) give 0, i.e. "any version": that errs on the side of treating a definition
/// as OpenCL 1.x, so that the tests demand it rather than silently skip it.
pub fn version_required(cond: &str) -> u32 {
    let words = c_words(cond);
    if words.contains(&"||") {
        return 0;
    }
    // The two words before position `i`, ignoring `(`: is it `! defined (NAME` or `! (NAME`?
    let before = |i: usize| -> Vec<&str> {
        words[..i]
            .iter()
            .rev()
            .copied()
            .filter(|w| *w != "(")
            .take(2)
            .collect()
    };
    let mut required = 0;
    for (i, w) in words.iter().enumerate() {
        let version = if let Some(v) = w.strip_prefix("CL_VERSION_") {
            let positive = match before(i).as_slice() {
                ["defined"] => true,
                ["defined", b] => *b != "!",
                _ => false,
            };
            if !positive {
                continue;
            }
            let mut parts = v.split('_').map(str::parse::<u32>);
            match (parts.next(), parts.next()) {
                (Some(Ok(major)), Some(Ok(minor))) => major * 100 + minor * 10,
                _ => continue,
            }
        } else if *w == "CL_TARGET_OPENCL_VERSION" && before(i).first() != Some(&"!") {
            match (words.get(i + 1), words.get(i + 2).map(|n| n.parse::<u32>())) {
                (Some(&">="), Some(Ok(n))) => n,
                (Some(&">"), Some(Ok(n))) => n + 1,
                _ => continue,
            }
        } else {
            continue;
        };
        required = required.max(version);
    }
    required
}

/// `cond` split into identifiers, numbers and operators.
fn c_words(cond: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = cond.trim_start();
    while let Some(c) = rest.chars().next() {
        let len = if c.is_ascii_alphanumeric() || c == '_' {
            rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .unwrap_or(rest.len())
        } else if [">=", "<=", "==", "!=", "&&", "||"]
            .iter()
            .any(|op| rest.starts_with(op))
        {
            2
        } else {
            c.len_utf8()
        };
        out.push(&rest[..len]);
        rest = rest[len..].trim_start();
    }
    out
}

/// `typedef <target> <name>;` on one line, if `line` is one (struct and function-pointer
/// typedefs span lines and are not).
fn one_line_typedef(line: &str) -> Option<Typedef> {
    let decl = line.trim().strip_prefix("typedef ")?.strip_suffix(';')?;
    if decl.contains(['(', '{', '[']) {
        return None;
    }
    let spaced = decl.replace('*', " * ");
    let (target, name) = spaced.trim().rsplit_once(char::is_whitespace)?;
    Some(Typedef {
        name: name.to_string(),
        target: target.split_whitespace().collect::<Vec<_>>().join(" "),
        min_version: 0,
    })
}

/// Every `typedef RET (CL_API_CALL *NAME)(PARAMS) ...;` of `src`: `(NAME, whole declaration)`
/// with whitespace normalised.
pub fn function_pointer_typedefs(src: &str) -> Vec<(String, String)> {
    let text = strip_comments(src);
    let mut out = Vec::new();
    for piece in text.split(';') {
        let Some(start) = piece.find("typedef") else {
            continue;
        };
        let decl = piece[start..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let Some(after) = decl.split_once("CL_API_CALL").map(|(_, a)| a) else {
            continue;
        };
        let name: String = after
            .trim_start()
            .trim_start_matches('*')
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        out.push((name, decl));
    }
    out
}

/// A member of a C struct. An anonymous union counts as one member, named after its first
/// alternative (how the dispatch table's unions are named without `CL_HAS_ANON_UNION`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// The declared type, e.g. `size_t` or `cl_api_clGetPlatformIDs`.
    pub c_type: String,
}

/// The members of `struct <tag> { ... }` in `src`, in order.
///
/// Conditional blocks inside the body are resolved as a program that defines none of the
/// optional macros would see them: `#ifdef X` and `#if defined(X)` are false, `#ifndef X` is
/// true. That is the layout a driver compiled without opting into anything must have: no
/// `CL_ENABLE_BETA_EXTENSIONS`, no `CL_HAS_ANON_UNION`, and (for `cl_image_desc`) none of the
/// OpenCL 2.0 additions. An `#if` it cannot evaluate is an error, not a guess.
pub fn struct_fields(src: &str, tag: &str) -> Result<Vec<Field>, String> {
    let lines = logical_lines(src);
    let opening = format!("struct {tag} {{");
    let normalise = |s: &str| {
        s.replace('{', " { ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let start = lines
        .iter()
        .position(|l| normalise(&l.text).contains(&opening))
        .ok_or_else(|| format!("no `{opening}` in the header"))?;
    let first = &lines[start].text;
    let mut body = first[first.find('{').map_or(0, |i| i + 1)..].to_string();
    // (active, some branch taken) for each open #if inside the body.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let active = |stack: &[(bool, bool)]| stack.iter().all(|f| f.0);
    for line in &lines[start + 1..] {
        if let Some((keyword, rest)) = directive(&line.text) {
            let parent = active(&stack);
            let at = |msg: String| format!("line {}: {msg}", line.number);
            match keyword {
                "ifdef" => stack.push((false, false)),
                "ifndef" => stack.push((parent, parent)),
                "if" => {
                    let v = parent && condition(rest).map_err(at)?;
                    stack.push((v, v));
                }
                "elif" => {
                    let (_, taken) = *stack.last().ok_or_else(|| at("#elif".into()))?;
                    let v = parent_of(&stack) && !taken && condition(rest).map_err(at)?;
                    *stack.last_mut().expect("checked above") = (v, taken || v);
                }
                "else" => {
                    let (_, taken) = *stack.last().ok_or_else(|| at("#else".into()))?;
                    let v = parent_of(&stack) && !taken;
                    *stack.last_mut().expect("checked above") = (v, true);
                }
                "endif" => {
                    stack.pop().ok_or_else(|| at("#endif".into()))?;
                }
                "error" if parent => return Err(at(format!("#error {rest}"))),
                _ => {}
            }
            continue;
        }
        if !active(&stack) {
            continue;
        }
        body.push('\n');
        body.push_str(&line.text);
        if closing_brace(&body).is_some() {
            break;
        }
    }
    let end = closing_brace(&body).ok_or_else(|| format!("`{opening}` is never closed"))?;
    declarations(&body[..end])
}

/// Whether the enclosing blocks of the innermost open `#if` are all active.
fn parent_of(stack: &[(bool, bool)]) -> bool {
    stack[..stack.len().saturating_sub(1)].iter().all(|f| f.0)
}

/// Evaluates an `#if` condition with every macro undefined.
fn condition(cond: &str) -> Result<bool, String> {
    let mut text = String::new();
    let mut rest = cond;
    while let Some(i) = rest.find("defined") {
        text.push_str(&rest[..i]);
        let after = rest[i + "defined".len()..].trim_start();
        let (inner, tail) = match after.strip_prefix('(') {
            Some(a) => a.split_once(')').ok_or("unbalanced defined(")?,
            None => after.split_once(char::is_whitespace).unwrap_or((after, "")),
        };
        if inner.trim().is_empty() {
            return Err(format!("cannot read `#if {cond}`"));
        }
        text.push_str(" 0 ");
        rest = tail;
    }
    text.push_str(rest);
    struct Undefined;
    impl Env for Undefined {
        fn macro_body(&self, _: &str) -> Option<&str> {
            None
        }
        fn int_type(&self, _: &str) -> Option<CType> {
            None
        }
    }
    eval::eval(&text, &Undefined)
        .map(|v| v.value != 0)
        .map_err(|e| format!("cannot evaluate `#if {cond}`: {e}"))
}

fn closing_brace(body: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Splits a struct body into members.
fn declarations(body: &str) -> Result<Vec<Field>, String> {
    let spaced = ["{", "}", ";", "*", "[", "]", "(", ")"]
        .iter()
        .fold(body.to_string(), |s, p| s.replace(p, &format!(" {p} ")));
    let tokens: Vec<&str> = spaced
        .split_whitespace()
        .filter(|t| *t != "__extension__")
        .collect();
    let mut fields = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if matches!(tokens[i], "union" | "struct") && tokens.get(i + 1) == Some(&"{") {
            // Anonymous aggregate: find its end, parse its members, keep the first.
            let mut depth = 0;
            let mut j = i + 1;
            loop {
                match tokens.get(j) {
                    Some(&"{") => depth += 1,
                    Some(&"}") => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Some(_) => {}
                    None => return Err("unterminated anonymous union".into()),
                }
                j += 1;
            }
            let inner = declarations(&tokens[i + 2..j].join(" "))?;
            fields.push(inner.into_iter().next().ok_or("empty anonymous union")?);
            if tokens.get(j + 1) != Some(&";") {
                return Err("a named union member is not supported".into());
            }
            i = j + 2;
            continue;
        }
        let end = tokens[i..]
            .iter()
            .position(|t| *t == ";")
            .map(|p| i + p)
            .ok_or_else(|| format!("member without `;`: {}", tokens[i..].join(" ")))?;
        let decl = &tokens[i..end];
        if decl.iter().any(|t| ["(", "[", "{"].contains(t)) {
            return Err(format!("unsupported member `{}`", decl.join(" ")));
        }
        match decl {
            [ty @ .., name] if !ty.is_empty() => fields.push(Field {
                name: name.to_string(),
                c_type: ty.join(" "),
            }),
            _ => return Err(format!("cannot read member `{}`", decl.join(" "))),
        }
        i = end + 1;
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
#ifndef GUARD_H
#define GUARD_H
/* a comment with #define CL_IN_COMMENT 1 */
#define CL_A 0x1 // trailing
#ifdef CL_VERSION_1_2
#define CL_B (1 << 2)
#ifdef CL_VERSION_2_0
#define CL_C -3
#else
#define CL_D 4
#endif
#endif
#if defined(CL_VERSION_3_0) && !defined(FOO)
#define CL_E 5
#elif CL_TARGET_OPENCL_VERSION >= 220
#define CL_F 6
#elif defined(CL_VERSION_2_0) || defined(CL_VERSION_1_2)
#define CL_G 7
#endif
#if !defined(CL_VERSION_2_0)
#define CL_H 8
#endif
#define CL_LONG \
    (1 << \
     3)
#define CL_FN(x) ((x) + 1)
typedef cl_uint             cl_thing; /* comment */
typedef struct _cl_obj *    cl_obj;
#endif
"#;

    fn get<'a>(s: &'a Scan, name: &str) -> &'a Define {
        s.define(name).unwrap_or_else(|| panic!("{name} not found"))
    }

    #[test]
    fn finds_defines_and_their_versions() {
        let s = scan(SAMPLE).unwrap();
        let names: Vec<&str> = s.defines.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "GUARD_H", "CL_A", "CL_B", "CL_C", "CL_D", "CL_E", "CL_F", "CL_G", "CL_H",
                "CL_LONG", "CL_FN"
            ]
        );
        let version = |n| get(&s, n).min_version;
        assert_eq!(version("CL_A"), 0);
        assert_eq!(version("CL_B"), 120);
        assert_eq!(version("CL_C"), 200);
        assert_eq!(
            version("CL_D"),
            120,
            "#else of a 2.0 test is the pre-2.0 branch"
        );
        assert_eq!(version("CL_E"), 300);
        assert_eq!(version("CL_F"), 220);
        assert_eq!(version("CL_G"), 0, "|| is not read as a requirement");
        assert_eq!(version("CL_H"), 0);
        assert_eq!(get(&s, "CL_A").body, "0x1");
        let long = get(&s, "CL_LONG")
            .body
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(long, "(1 << 3)", "continuation lines are spliced");
        assert!(get(&s, "CL_FN").function_like);
        assert!(!get(&s, "CL_B").function_like);
        assert_eq!(get(&s, "CL_C").guards.len(), 3);
        assert_eq!(get(&s, "CL_B").line, 7);
    }

    #[test]
    fn finds_one_line_typedefs() {
        let s = scan(SAMPLE).unwrap();
        let t: Vec<(&str, &str)> = s
            .typedefs
            .iter()
            .map(|t| (t.name.as_str(), t.target.as_str()))
            .collect();
        assert_eq!(t, [("cl_thing", "cl_uint"), ("cl_obj", "struct _cl_obj *")]);
    }

    #[test]
    fn rejects_unbalanced_conditionals() {
        assert!(scan("#ifdef X\n#define CL_A 1\n").is_err());
        assert!(scan("#endif\n").is_err());
        assert!(scan("#else\n").is_err());
    }

    #[test]
    fn version_requirements() {
        assert_eq!(version_required("defined(CL_VERSION_2_1)"), 210);
        assert_eq!(version_required("defined CL_VERSION_1_1"), 110);
        assert_eq!(version_required("!defined(CL_VERSION_2_0)"), 0);
        assert_eq!(version_required("CL_TARGET_OPENCL_VERSION >= 200"), 200);
        assert_eq!(version_required("CL_TARGET_OPENCL_VERSION <= 110"), 0);
        assert_eq!(version_required("CL_TARGET_OPENCL_VERSION>300"), 301);
        assert_eq!(version_required("defined(CL_VERSION_2_0) || 1"), 0);
    }

    #[test]
    fn strips_comments_but_not_strings() {
        let s = strip_comments("a /* x\ny */ b // z\n\"/* kept */\" c");
        assert_eq!(s, "a \n  b \n\"/* kept */\" c");
    }

    const STRUCT: &str = r#"
typedef struct _table {
  /* OpenCL 1.0 */
  cl_api_clA clA;
  cl_api_clLongName
      clLongName;
#ifdef CL_ENABLE_BETA_EXTENSIONS
  cl_api_clBeta clBeta;
#else
  void *clBetaPlaceholder;
#endif
#if defined(CL_HAS_ANON_UNION) && defined(__GNUC__)
  void *hidden;
#elif !defined(NOTHING)
  union {
    cl_api_clB clB;
    void *clB_tag;
  };
#endif
#ifndef CL_NOT_DEFINED
  size_t size;
#endif
} table;
"#;

    #[test]
    fn reads_struct_members_with_optional_macros_undefined() {
        let fields = struct_fields(STRUCT, "_table").unwrap();
        let got: Vec<(&str, &str)> = fields
            .iter()
            .map(|f| (f.name.as_str(), f.c_type.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("clA", "cl_api_clA"),
                ("clLongName", "cl_api_clLongName"),
                ("clBetaPlaceholder", "void *"),
                ("clB", "cl_api_clB"),
                ("size", "size_t"),
            ]
        );
        assert!(struct_fields(STRUCT, "_missing").is_err());
        let bad = "struct _t {\n#if SOME_MACRO\nint a;\n#endif\n};";
        assert!(struct_fields(bad, "_t").unwrap_err().contains("SOME_MACRO"));
    }

    #[test]
    fn finds_function_pointer_typedefs() {
        let src = "typedef cl_int(CL_API_CALL *cl_api_clX)(\n  cl_uint a, /* c */ void *b) SFX;\n\
                   typedef void *cl_api_clY;";
        let f = function_pointer_typedefs(src);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "cl_api_clX");
        assert_eq!(
            f[0].1,
            "typedef cl_int(CL_API_CALL *cl_api_clX)( cl_uint a, void *b) SFX"
        );
    }
}
