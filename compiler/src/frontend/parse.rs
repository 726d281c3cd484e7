//! The parser: preprocessed tokens to the syntax tree of [`ast`](super::ast).
//!
//! A hand-written recursive-descent parser over C99's grammar (ISO/IEC 9899:1999 annex
//! A.2) with OpenCL C 1.2's changes: its keywords (address spaces, access qualifiers,
//! `__kernel`, `half`, `bool`, `vec_step`), its predefined type names, vector literals, and
//! GNU `__attribute__` lists. Each function is named after the grammar rule it parses and
//! carries that rule (in EBNF) as its doc comment. Declarations live in `parse/decl.rs`,
//! statements in `parse/stmt.rs`, expressions in `parse/expr.rs`.
//!
//! Three things make C hard to parse and are handled here:
//! - **Typedef names.** `T * x;` is a declaration if `T` names a type and a multiplication
//!   otherwise, so the parser keeps a stack of scopes recording which identifiers are
//!   typedef names and which ordinary identifiers hide them (the "lexer hack"). OpenCL's
//!   predefined type names (`uint`, `float4`, `size_t`, `image2d_t`, ...) sit under the
//!   file scope, so they too can be hidden by a variable of the same name.
//! - **Errors.** The parser never stops at the first error. A syntax error is reported once
//!   and unwinds (as `Err(Failed)`) to the nearest recovery point: the statement in a block,
//!   the member in a struct, the initializer of a declaration, the external declaration.
//!   There the tokens are skipped to the end of the construct (a `;` or the `}` that closes
//!   it, brackets balanced), and parsing resumes. The construct that failed is left out of
//!   the tree, so a tree from a run with errors is for diagnostics only.
//! - **Depth.** Nesting (parentheses, unary operators, statements, declarators,
//!   initializers) is capped at [`MAX_NESTING`] levels and the height of an expression
//!   tree at [`MAX_HEIGHT`] (long operator chains build tall trees without recursing),
//!   so that neither the parser nor the passes that walk the tree overflow the stack. At
//!   the cap the parser uses under 1 MiB of stack (about 3 KiB per level of nested
//!   statements in a debug build, less for expressions): a thread with Rust's default
//!   2 MiB is enough.

mod decl;
mod dump;
mod expr;
mod stmt;

use std::collections::HashMap;
use std::sync::Arc;

use super::ast::*;
use super::diag::Diagnostics;
use super::source::Span;
use super::token::{Punct, Token, TokenKind};

pub use dump::dump;

/// How deep parentheses, unary operators, statements, declarators and initializers may
/// nest. Clang's limit for brackets is the same; real code stays far below it.
pub const MAX_NESTING: u32 = 256;

/// How tall an expression tree may grow (in nesting levels; each operator of a chain such
/// as `a + b + c` adds one). Generated code with chains of hundreds of operators fits;
/// the recursive walks of later passes stay well within a thread's stack.
pub const MAX_HEIGHT: u32 = 1024;

/// Parses a whole translation unit. Every syntax error is reported to `diags`; the tree
/// holds everything that parsed.
pub fn parse(tokens: &[Token], diags: &mut Diagnostics) -> TranslationUnit {
    Parser::new(tokens, diags).translation_unit()
}

/// Whether `name` is one of the type names OpenCL C 1.2 predefines (besides its keywords):
/// `uchar`, `ushort`, `uint`, `ulong`, the vector types `char2` … `double16` and `half2` …
/// `half16`, `size_t`, `ptrdiff_t`, `intptr_t`, `uintptr_t`, the image types, `sampler_t`,
/// `event_t` and `cl_mem_fence_flags`.
pub fn is_predefined_type_name(name: &str) -> bool {
    predefined_type(name).is_some()
}

/// `Some(is_vector)` for a predefined type name.
fn predefined_type(name: &str) -> Option<bool> {
    match name {
        "uchar" | "ushort" | "uint" | "ulong" | "size_t" | "ptrdiff_t" | "intptr_t"
        | "uintptr_t" | "image1d_t" | "image1d_array_t" | "image1d_buffer_t" | "image2d_t"
        | "image2d_array_t" | "image3d_t" | "sampler_t" | "event_t" | "cl_mem_fence_flags" => {
            return Some(false);
        }
        _ => {}
    }
    let digits = name.find(|c: char| c.is_ascii_digit())?;
    let (element, width) = name.split_at(digits);
    let element_ok = matches!(
        element,
        "char"
            | "uchar"
            | "short"
            | "ushort"
            | "int"
            | "uint"
            | "long"
            | "ulong"
            | "float"
            | "double"
            | "half"
    );
    (element_ok && matches!(width, "2" | "3" | "4" | "8" | "16")).then_some(true)
}

/// A syntax error was reported; the parser is unwinding to a recovery point.
#[derive(Debug)]
struct Failed;

type PResult<T> = Result<T, Failed>;

/// The keywords of OpenCL C 1.2 (C99's, OpenCL's, and the GNU spellings headers use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kw {
    Auto,
    Break,
    Case,
    Char,
    Const,
    Continue,
    Default,
    Do,
    Double,
    Else,
    Enum,
    Extern,
    Float,
    For,
    Goto,
    If,
    Inline,
    Int,
    Long,
    Register,
    Restrict,
    Return,
    Short,
    Signed,
    Sizeof,
    Static,
    Struct,
    Switch,
    Typedef,
    Union,
    Unsigned,
    Void,
    Volatile,
    While,
    Bool,
    Half,
    Kernel,
    Global,
    Local,
    Constant,
    Private,
    ReadOnly,
    WriteOnly,
    ReadWrite,
    VecStep,
    Attribute,
    /// `__typeof__` / `__typeof` (GNU; clang has them in OpenCL C, plain `typeof` only in
    /// GNU modes, which OpenCL C is not).
    Typeof,
}

fn keyword(text: &str) -> Option<Kw> {
    Some(match text {
        "auto" => Kw::Auto,
        "break" => Kw::Break,
        "case" => Kw::Case,
        "char" => Kw::Char,
        "const" | "__const" => Kw::Const,
        "continue" => Kw::Continue,
        "default" => Kw::Default,
        "do" => Kw::Do,
        "double" => Kw::Double,
        "else" => Kw::Else,
        "enum" => Kw::Enum,
        "extern" => Kw::Extern,
        "float" => Kw::Float,
        "for" => Kw::For,
        "goto" => Kw::Goto,
        "if" => Kw::If,
        "inline" | "__inline" | "__inline__" => Kw::Inline,
        "int" => Kw::Int,
        "long" => Kw::Long,
        "register" => Kw::Register,
        "restrict" | "__restrict" | "__restrict__" => Kw::Restrict,
        "return" => Kw::Return,
        "short" => Kw::Short,
        "signed" | "__signed" | "__signed__" => Kw::Signed,
        "sizeof" => Kw::Sizeof,
        "static" => Kw::Static,
        "struct" => Kw::Struct,
        "switch" => Kw::Switch,
        "typedef" => Kw::Typedef,
        "union" => Kw::Union,
        "unsigned" => Kw::Unsigned,
        "void" => Kw::Void,
        "volatile" | "__volatile" | "__volatile__" => Kw::Volatile,
        "while" => Kw::While,
        "bool" | "_Bool" => Kw::Bool,
        "half" => Kw::Half,
        "kernel" | "__kernel" => Kw::Kernel,
        "global" | "__global" => Kw::Global,
        "local" | "__local" => Kw::Local,
        "constant" | "__constant" => Kw::Constant,
        "private" | "__private" => Kw::Private,
        "read_only" | "__read_only" => Kw::ReadOnly,
        "write_only" | "__write_only" => Kw::WriteOnly,
        "read_write" | "__read_write" => Kw::ReadWrite,
        "vec_step" => Kw::VecStep,
        "__attribute__" | "__attribute" => Kw::Attribute,
        "__typeof__" | "__typeof" => Kw::Typeof,
        _ => return None,
    })
}

/// A token as the parser sees it: keywords told apart from identifiers once, up front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Kw(Kw),
    Ident,
    Number,
    Char,
    Str,
    Punct(Punct),
    Pragma,
    Other,
    Eof,
}

/// What an identifier means in a scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Name {
    /// A variable, function, parameter or enumerator: hides a typedef name.
    Ordinary,
    /// A typedef name; `vector` when it names a vector type (a vector literal may follow a
    /// cast to it).
    Typedef { vector: bool },
}

/// An opening bracket that has not been closed yet.
#[derive(Clone, Copy, Debug)]
struct Open {
    punct: Punct,
    /// How many `{` the stack holds up to and including this entry.
    braces: u32,
    /// How many `for (` headers the stack holds up to and including this entry (their `;`
    /// separate clauses, so recovery does not stop at them).
    fors: u32,
}

/// Where a recovery point started: what to restore when a construct inside it fails.
#[derive(Clone, Copy, Debug)]
struct Mark {
    open: usize,
    scopes: usize,
    depth: u32,
}

struct Parser<'a> {
    tokens: &'a [Token],
    /// The class of each token up to the first `Eof`, which `classes` always ends with.
    classes: Vec<Class>,
    /// Returned for positions at and after the end.
    eof: Token,
    pos: usize,
    diags: &'a mut Diagnostics,
    /// Innermost last. The first is the file scope.
    scopes: Vec<HashMap<Arc<str>, Name>>,
    /// The brackets opened and not yet closed, for error recovery.
    open: Vec<Open>,
    /// Current nesting (see [`MAX_NESTING`]).
    depth: u32,
    /// The deepest level the expression being measured reaches (see [`MAX_HEIGHT`]).
    peak: u32,
    /// The last syntax error reported, to drop exact repeats.
    last_error: Option<(Span, String)>,
    /// Whether the last error was such a repeat (its notes go too).
    last_suppressed: bool,
}

impl<'a> Parser<'a> {
    fn new(tokens: &'a [Token], diags: &'a mut Diagnostics) -> Parser<'a> {
        let mut classes = Vec::with_capacity(tokens.len() + 1);
        for t in tokens {
            let class = match t.kind {
                TokenKind::Ident => keyword(&t.text).map_or(Class::Ident, Class::Kw),
                TokenKind::Number => Class::Number,
                TokenKind::Char => Class::Char,
                TokenKind::Str => Class::Str,
                TokenKind::Punct(p) => Class::Punct(p),
                TokenKind::Pragma => Class::Pragma,
                TokenKind::Other => Class::Other,
                TokenKind::Eof => break,
            };
            classes.push(class);
        }
        classes.push(Class::Eof);
        // An input without its `Eof` still ends cleanly: the end is where the last token
        // ends.
        let end = classes.len() - 1;
        let eof = match tokens.get(end) {
            Some(t) => t.clone(),
            None => {
                let at = tokens.last().map_or(Span::default(), |t| {
                    let s = t.site;
                    Span { start: s.end, ..s }
                });
                Token {
                    kind: TokenKind::Eof,
                    text: "".into(),
                    span: at,
                    site: at,
                    at_line_start: true,
                    space_before: false,
                }
            }
        };
        Parser {
            tokens,
            classes,
            eof,
            pos: 0,
            diags,
            scopes: vec![HashMap::new()],
            open: Vec::new(),
            depth: 0,
            peak: 0,
            last_error: None,
            last_suppressed: false,
        }
    }

    // ----- The token cursor -----

    fn end(&self) -> usize {
        self.classes.len() - 1
    }

    fn tok(&self, i: usize) -> &Token {
        if i < self.end() {
            &self.tokens[i]
        } else {
            &self.eof
        }
    }

    fn class_at(&self, i: usize) -> Class {
        self.classes[i.min(self.end())]
    }

    fn peek(&self) -> Class {
        self.class_at(self.pos)
    }

    fn peek_at(&self, ahead: usize) -> Class {
        self.class_at(self.pos.saturating_add(ahead))
    }

    fn at(&self, p: Punct) -> bool {
        self.peek() == Class::Punct(p)
    }

    fn at_kw(&self, kw: Kw) -> bool {
        self.peek() == Class::Kw(kw)
    }

    /// The current token's span in the preprocessed program.
    fn site(&self) -> Span {
        self.tok(self.pos).site
    }

    /// An empty span just after the previous token (where a missing `;` belongs).
    fn after_prev(&self) -> Span {
        if self.pos == 0 {
            let s = self.site();
            return Span { end: s.start, ..s };
        }
        let s = self.tok(self.pos - 1).site;
        Span { start: s.end, ..s }
    }

    /// The span of the previous token (the end of the construct just parsed).
    fn prev_site(&self) -> Span {
        if self.pos == 0 {
            self.site()
        } else {
            self.tok(self.pos - 1).site
        }
    }

    /// Moves past the current token (never past the end) and returns its index.
    fn advance(&mut self) -> usize {
        let i = self.pos;
        if i >= self.end() {
            return i;
        }
        if let Class::Punct(p) = self.classes[i] {
            self.track_bracket(p);
        }
        self.pos += 1;
        i
    }

    /// Consumes the current token if it is `p`.
    fn eat(&mut self, p: Punct) -> bool {
        if self.at(p) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, kw: Kw) -> bool {
        if self.at_kw(kw) {
            self.advance();
            true
        } else {
            false
        }
    }

    // ----- Errors -----

    /// Reports a syntax error, unless it repeats the previous one: at the end of the input,
    /// every unclosed construct would otherwise report the same missing `}`.
    fn report(&mut self, span: Span, message: String) -> Failed {
        let repeated = self
            .last_error
            .as_ref()
            .is_some_and(|(s, m)| *s == span && *m == message);
        self.last_suppressed = repeated;
        if !repeated {
            self.diags.error(span, message.clone());
            self.last_error = Some((span, message));
        }
        Failed
    }

    /// A note to the error just reported (dropped with it if that was a repeat).
    fn note(&mut self, span: Span, message: &str) {
        if !self.last_suppressed {
            self.diags.note(span, message);
        }
    }

    /// Reports `message` at the current token.
    fn error_here(&mut self, message: impl Into<String>) -> Failed {
        let span = self.site();
        self.report(span, message.into())
    }

    /// Consumes `p` or reports `message` at the current token.
    fn expect(&mut self, p: Punct, message: &str) -> PResult<usize> {
        if self.at(p) {
            Ok(self.advance())
        } else {
            Err(self.error_here(message))
        }
    }

    /// Consumes a `;` or reports `message` just after the previous token, as clang does:
    /// the `;` is missing there, whatever comes next. When the next token starts a line (or
    /// closes the block) the `;` was most likely forgotten at the end of the line: parsing
    /// goes on as if it were there, so the construct is kept and nothing is skipped.
    fn expect_semi(&mut self, message: &str) -> PResult<()> {
        if self.eat(Punct::Semi) {
            return Ok(());
        }
        let span = self.after_prev();
        let failed = self.report(span, message.to_string());
        let t = self.tok(self.pos);
        let forgotten = (t.at_line_start && self.pos > 0)
            || matches!(self.peek(), Class::Punct(Punct::RBrace) | Class::Eof);
        if forgotten { Ok(()) } else { Err(failed) }
    }

    /// Consumes the bracket `close` that matches the one at token `opener`, or reports it
    /// missing with a note at the opener.
    fn expect_closing(&mut self, close: Punct, opener: usize) -> PResult<usize> {
        if self.at(close) {
            return Ok(self.advance());
        }
        let open = self.tok(opener);
        let (open_site, open_text) = (open.site, open.text.clone());
        let err = self.error_here(format!("expected '{}'", close.spelling()));
        self.note(open_site, &format!("to match this '{open_text}'"));
        Err(err)
    }

    // ----- Nesting -----

    /// Enters one level of nesting, failing cleanly past [`MAX_NESTING`].
    fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_NESTING {
            return Err(self.error_here(format!(
                "nesting is too deep (the limit is {MAX_NESTING} levels)"
            )));
        }
        self.depth += 1;
        self.peak = self.peak.max(self.depth);
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Runs `f` one nesting level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let result = f(self);
        self.leave();
        result
    }

    /// Runs `f` and also returns how many levels the expression it parses reaches below
    /// the current one (its height, in nesting levels).
    fn measure<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<(T, u32)> {
        let start = self.depth;
        let outer = self.peak;
        self.peak = start;
        let value = f(self)?;
        let height = self.peak.saturating_sub(start);
        self.peak = self.peak.max(outer);
        Ok((value, height))
    }

    /// Records that an operator chain built a tree `height` levels tall here; fails past
    /// [`MAX_HEIGHT`], at the operator that crossed it.
    fn grow(&mut self, height: u32, op_span: Span) -> PResult<()> {
        let reach = self.depth.saturating_add(height);
        if reach > MAX_HEIGHT {
            let message =
                format!("expression is too complex (nested more than {MAX_HEIGHT} levels deep)");
            return Err(self.report(op_span, message));
        }
        self.peak = self.peak.max(reach);
        Ok(())
    }

    // ----- Scopes (the "lexer hack") -----

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    fn declare(&mut self, name: &Arc<str>, meaning: Name) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.clone(), meaning);
        }
    }

    /// What `name` means here: `Some(is_vector)` for a type name.
    fn type_name_info(&self, name: &str) -> Option<bool> {
        for scope in self.scopes.iter().rev() {
            match scope.get(name) {
                Some(Name::Typedef { vector }) => return Some(*vector),
                Some(Name::Ordinary) => return None,
                None => {}
            }
        }
        predefined_type(name)
    }

    fn is_type_name_ident(&self, i: usize) -> bool {
        self.class_at(i) == Class::Ident && self.type_name_info(&self.tok(i).text).is_some()
    }

    /// Whether token `i` can start a type name (specifier-qualifier-list): a type
    /// specifier or qualifier keyword, an attribute, or a typedef name.
    fn starts_type_name(&self, i: usize) -> bool {
        match self.class_at(i) {
            Class::Kw(kw) => matches!(
                kw,
                Kw::Void
                    | Kw::Char
                    | Kw::Short
                    | Kw::Int
                    | Kw::Long
                    | Kw::Float
                    | Kw::Double
                    | Kw::Half
                    | Kw::Bool
                    | Kw::Signed
                    | Kw::Unsigned
                    | Kw::Struct
                    | Kw::Union
                    | Kw::Enum
                    | Kw::Const
                    | Kw::Volatile
                    | Kw::Restrict
                    | Kw::Global
                    | Kw::Local
                    | Kw::Constant
                    | Kw::Private
                    | Kw::ReadOnly
                    | Kw::WriteOnly
                    | Kw::ReadWrite
                    | Kw::Attribute
                    | Kw::Typeof
            ),
            Class::Ident => self.is_type_name_ident(i),
            _ => false,
        }
    }

    /// Whether token `i` starts a declaration in a block: declaration specifiers, or an
    /// unknown identifier followed by an identifier (`flaot x;`, reported as an unknown type
    /// name rather than as a missing `;`).
    fn starts_declaration(&self, i: usize) -> bool {
        match self.class_at(i) {
            Class::Kw(
                Kw::Typedef
                | Kw::Extern
                | Kw::Static
                | Kw::Auto
                | Kw::Register
                | Kw::Kernel
                | Kw::Inline,
            ) => true,
            // A name followed by `:` is a label, even if it names a type.
            Class::Ident if self.class_at(i + 1) == Class::Punct(Punct::Colon) => false,
            Class::Ident if !self.is_type_name_ident(i) => self.class_at(i + 1) == Class::Ident,
            _ => self.starts_type_name(i),
        }
    }

    // ----- Recovery -----

    fn mark(&self) -> Mark {
        Mark {
            open: self.open.len(),
            scopes: self.scopes.len(),
            depth: self.depth,
        }
    }

    /// After a failed construct that started at `mark`: restores the scopes and nesting and
    /// skips to the construct's end (see [`Parser::synchronize`]).
    fn recover(&mut self, mark: Mark) {
        self.scopes.truncate(mark.scopes.max(1));
        self.depth = mark.depth;
        self.synchronize(mark.open);
    }

    /// Skips tokens to the end of the construct that began with `base` brackets open: past
    /// a `;` outside any brace it opened, or past the `}` that closes the last brace it
    /// opened (and past an `else` branch after either). Stops before a `}` or closing bracket that
    /// belongs to an enclosing construct, before a `#pragma` (a line of its own, so a
    /// boundary) and at the end.
    fn synchronize(&mut self, base: usize) {
        loop {
            match self.peek() {
                Class::Eof => break,
                Class::Pragma if self.open.len() <= base => break,
                // A `;` ends the construct outside its brackets, and also inside unclosed
                // parentheses (a missing `)`), except those of a `for` header.
                Class::Punct(Punct::Semi)
                    if self.open.len() <= base
                        || (self.braces_above(base) == 0 && self.fors_above(base) == 0) =>
                {
                    self.advance();
                    self.open.truncate(base);
                    if !self.at_kw(Kw::Else) {
                        break;
                    }
                }
                Class::Punct(Punct::RBrace) => {
                    if self.braces_above(base) == 0 {
                        break;
                    }
                    self.advance();
                    if self.braces_above(base) == 0 && !self.at_kw(Kw::Else) {
                        break;
                    }
                }
                Class::Punct(close @ (Punct::RParen | Punct::RBracket)) => {
                    let opener = if close == Punct::RParen {
                        Punct::LParen
                    } else {
                        Punct::LBracket
                    };
                    match self.matching_open(opener) {
                        Some(i) if i < base => break,
                        _ => {
                            self.advance();
                        }
                    }
                }
                _ => {
                    self.advance();
                }
            }
        }
        self.open.truncate(base);
    }

    /// How many `{` were opened since `base` and are still open.
    fn braces_above(&self, base: usize) -> u32 {
        let total = self.open.last().map_or(0, |o| o.braces);
        let below = if base == 0 {
            0
        } else {
            self.open.get(base - 1).map_or(total, |o| o.braces)
        };
        total.saturating_sub(below)
    }

    /// How many `for (` headers were opened since `base` and are still open.
    fn fors_above(&self, base: usize) -> u32 {
        let total = self.open.last().map_or(0, |o| o.fors);
        let below = if base == 0 {
            0
        } else {
            self.open.get(base - 1).map_or(total, |o| o.fors)
        };
        total.saturating_sub(below)
    }

    /// Marks the `(` just consumed as a `for` header's.
    fn mark_for_header(&mut self) {
        if let Some(top) = self.open.last_mut() {
            top.fors += 1;
        }
    }

    /// The index of the open `opener` a closing bracket would match: the nearest one not
    /// behind a `{` (looking a bounded way down, so that skipping garbage stays linear).
    fn matching_open(&self, opener: Punct) -> Option<usize> {
        for (i, o) in self.open.iter().enumerate().rev().take(64) {
            if o.punct == opener {
                return Some(i);
            }
            if o.punct == Punct::LBrace {
                return None;
            }
        }
        None
    }

    fn track_bracket(&mut self, p: Punct) {
        let (braces, fors) = self.open.last().map_or((0, 0), |o| (o.braces, o.fors));
        match p {
            Punct::LParen | Punct::LBracket => self.open.push(Open {
                punct: p,
                braces,
                fors,
            }),
            Punct::LBrace => self.open.push(Open {
                punct: p,
                braces: braces + 1,
                fors,
            }),
            Punct::RParen | Punct::RBracket => {
                let opener = if p == Punct::RParen {
                    Punct::LParen
                } else {
                    Punct::LBracket
                };
                if let Some(i) = self.matching_open(opener) {
                    self.open.truncate(i);
                }
            }
            // The last `{` closes; the unclosed `(` and `[` above it go with it.
            Punct::RBrace if braces > 0 => {
                if let Some(i) = self.open.iter().rposition(|o| o.punct == Punct::LBrace) {
                    self.open.truncate(i);
                }
            }
            _ => {}
        }
    }

    // ----- The translation unit -----

    /// ```text
    /// translation-unit: external-declaration*
    /// ```
    fn translation_unit(&mut self) -> TranslationUnit {
        let mut items = Vec::new();
        while self.peek() != Class::Eof {
            let start = self.pos;
            let mark = self.mark();
            match self.external_declaration() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Failed) => self.recover(mark),
            }
            if self.pos == start {
                self.advance();
            }
        }
        TranslationUnit { items }
    }

    /// A `#pragma` token.
    fn pragma(&mut self) -> Pragma {
        let t = self.tok(self.pos);
        let pragma = Pragma {
            text: t.text.clone(),
            span: t.site,
        };
        self.advance();
        pragma
    }

    /// The `#pragma` lines at the current position.
    fn pragmas(&mut self) -> Vec<Pragma> {
        let mut pragmas = Vec::new();
        while self.peek() == Class::Pragma {
            pragmas.push(self.pragma());
        }
        pragmas
    }

    /// An identifier token as an [`Ident`].
    fn ident(&mut self) -> Ident {
        let t = self.tok(self.pos);
        let ident = Ident {
            name: t.text.clone(),
            span: t.site,
        };
        self.advance();
        ident
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::lex;
    use crate::frontend::source::SourceMap;

    fn parse_str(text: &str) -> (TranslationUnit, Diagnostics) {
        let mut sources = SourceMap::new();
        let file = sources.add("t.cl", text);
        let mut diags = Diagnostics::new();
        let tokens = lex::tokenize(file, text, &mut diags);
        (parse(&tokens, &mut diags), diags)
    }

    #[test]
    fn predefined_type_names() {
        for name in [
            "uint",
            "uchar",
            "float16",
            "half8",
            "double3",
            "ulong2",
            "size_t",
            "image1d_buffer_t",
            "event_t",
        ] {
            assert!(is_predefined_type_name(name), "{name}");
        }
        for name in [
            "float5",
            "bool2",
            "int1",
            "char32",
            "float",
            "int",
            "x",
            "float4x",
            "image4d_t",
            "",
        ] {
            assert!(!is_predefined_type_name(name), "{name}");
        }
        assert_eq!(predefined_type("float4"), Some(true));
        assert_eq!(predefined_type("uint"), Some(false));
    }

    #[test]
    fn keywords_in_both_spellings() {
        assert_eq!(keyword("__global"), keyword("global"));
        assert_eq!(keyword("__kernel"), Some(Kw::Kernel));
        assert_eq!(keyword("_Bool"), Some(Kw::Bool));
        assert_eq!(keyword("__attribute"), Some(Kw::Attribute));
        assert_eq!(keyword("float4"), None);
    }

    #[test]
    fn the_tree_keeps_spans() {
        let (unit, diags) = parse_str("int x = a + 1;");
        assert!(!diags.has_errors());
        let ExternalDecl::Declaration(d) = &unit.items[0] else {
            panic!("not a declaration")
        };
        assert_eq!((d.span.start, d.span.end), (0, 14));
        let init = d.declarators[0].init.as_ref().unwrap();
        assert_eq!((init.span.start, init.span.end), (8, 13));
        let InitializerKind::Expr(Expr {
            kind: ExprKind::Binary { op_span, .. },
            ..
        }) = &init.kind
        else {
            panic!("not a binary expression")
        };
        assert_eq!(op_span.start, 10);
    }

    #[test]
    fn a_missing_brace_at_the_end_is_reported_once() {
        let (_, diags) = parse_str("void f(void) { if (1) { while (1) {");
        assert_eq!(diags.error_count(), 1);
    }
}
