//! The preprocessor: translation phase 4 (C99 6.10) with OpenCL C 1.2's predefined macros
//! (OpenCL C 1.2 §6.10, §6.12.2, §6.12.3).
//!
//! It takes the lexer's tokens and produces the tokens of the translation unit: directives
//! executed, macros expanded, one `Eof` at the end. Adjacent string literals stay separate
//! (the parser concatenates them), and `#pragma` lines become single [`TokenKind::Pragma`]
//! tokens for the parser to interpret.
//!
//! The expansion algorithm is Prosser's, as in chibicc and cproc: every token carries a
//! *hideset*, the names of the macros whose expansion produced it. A name in its own hideset
//! is never expanded again, which is what stops self-referential macros, and taking the
//! hideset of a function-like invocation from its name *and* its closing parenthesis is what
//! gives the standard's results for the `f(a) a*g` / `g(a) f(a)` puzzles.
//!
//! Untrusted programs reach this code (`clBuildProgram` takes any text), so it never panics
//! and never recurses without bound: `#include` nesting, macro-argument nesting, `#if`
//! expression nesting and the total work of macro expansion are all capped, and every cap
//! is an error message, not a crash.
//!
//! Layout: this file holds the options, the entry point and the token streams (files being
//! read, expansion results waiting to be rescanned); `directives` runs `#` lines,
//! `macros` defines and expands macros, `expr` evaluates `#if` expressions and `predefined`
//! writes the predefined macros as source text.

mod directives;
mod expr;
mod hideset;
mod macros;
mod predefined;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use self::hideset::HideSet;
use self::macros::Macro;
use super::diag::{Diagnostic, Diagnostics};
use super::lex;
use super::source::{FileId, SourceMap, Span};
use super::token::{Punct, Token, TokenKind};

/// What a build's options (`-D`, `-U`, `-I`, `-cl-*`) and the device tell the preprocessor.
#[derive(Clone, Debug)]
pub struct PreprocessOptions {
    /// `-D name[=value]` in command-line order; `None` means the value `1`. A name may carry
    /// a parameter list (`-D 'SQ(x)=((x)*(x))'`).
    pub defines: Vec<(String, Option<String>)>,
    /// `-U name`, applied after every `-D` (as clang does).
    pub undefines: Vec<String>,
    /// `-I` directories, searched in order after the embedded headers.
    pub include_dirs: Vec<PathBuf>,
    /// `clCompileProgram`'s embedded headers: include name → source text. Searched before
    /// the `-I` directories.
    pub headers: Vec<(String, String)>,
    /// The device's extensions: each gets `#define name 1`.
    pub extensions: Vec<String>,
    /// `-cl-fast-relaxed-math`: defines `__FAST_RELAXED_MATH__`.
    pub fast_relaxed_math: bool,
    /// The device supports images: defines `__IMAGE_SUPPORT__`.
    pub image_support: bool,
    /// The device supports `double`: defines the `M_*` double constants, the `DBL_*`
    /// limits and `HUGE_VAL`.
    pub fp64: bool,
    /// `fma` is as fast as a multiply and an add on this device: defines `FP_FAST_FMAF`
    /// (and `FP_FAST_FMA` with `fp64`), as C99 7.12p7 and OpenCL C §6.12.2 ask.
    pub fast_fma: bool,
    /// `-cl-std`: 110 or 120; the value of `__OPENCL_C_VERSION__`.
    pub opencl_c_version: u32,
}

impl Default for PreprocessOptions {
    fn default() -> PreprocessOptions {
        PreprocessOptions {
            defines: Vec::new(),
            undefines: Vec::new(),
            include_dirs: Vec::new(),
            headers: Vec::new(),
            extensions: Vec::new(),
            fast_relaxed_math: false,
            image_support: false,
            fp64: false,
            fast_fma: false,
            opencl_c_version: 120,
        }
    }
}

/// Preprocesses file `main` of `sources`: returns the translation unit's tokens, ending with
/// one `Eof`. Included files are added to `sources`; every problem goes to `diags`.
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    options: &PreprocessOptions,
    diags: &mut Diagnostics,
) -> Vec<Token> {
    let mut pp = Preprocessor::new(sources, options, diags);
    pp.define_builtins();
    let main_origin = Origin::of_main_file(&pp.sources.file(main).name);
    pp.push_file(main, main_origin);
    // The predefined macros and the command line are read as source files of their own
    // (as clang does), so their definitions go through the same checks and redefinition
    // warnings and point somewhere readable. They sit above the main file on the stack, so
    // they are read first: built-ins, then the command line, then the program.
    let command_line = predefined::command_line_source(options);
    if !command_line.is_empty() {
        let id = pp.sources.add("<command line>", &command_line);
        pp.push_file(id, Origin::None);
    }
    let builtin = predefined::builtin_source(options);
    let id = pp.sources.add("<built-in>", &builtin);
    pp.push_file(id, Origin::None);
    pp.run()
}

/// The tokens of the predefined macros' source (`<built-in>`), lexed once per thread for
/// each text and file id: every build defines them, and lexing them again was most of the
/// preprocessing of a small program (it has no lexer errors to report).
fn lex_predefined(file: FileId, text: &str) -> Rc<[Token]> {
    type Cached = Option<(FileId, Rc<str>, Rc<[Token]>)>;
    thread_local! {
        static LEXED: std::cell::RefCell<Cached> = const { std::cell::RefCell::new(None) };
    }
    LEXED.with(|cell| {
        let mut cached = cell.borrow_mut();
        match &*cached {
            Some((id, t, tokens)) if *id == file && **t == *text => Rc::clone(tokens),
            _ => {
                let tokens: Rc<[Token]> = lex::tokenize(file, text, &mut Diagnostics::new()).into();
                *cached = Some((file, text.into(), Rc::clone(&tokens)));
                tokens
            }
        }
    })
}

/// Most nested `#include`s (clang's limit too).
const MAX_INCLUDE_DEPTH: usize = 200;
/// Most `#include`s executed in one translation unit: a header that includes itself twice
/// would otherwise open 2^200 files before the depth limit stopped it.
const MAX_INCLUDES: usize = 10_000;
/// Most nested macro invocations inside macro arguments (each level is a recursion of the
/// expander: the cap keeps the native stack safe).
const MAX_EXPANSION_DEPTH: u32 = 128;
/// Most work of macro expansion: tokens produced plus bytes of stringized and pasted
/// spellings. Exponential macro bombs stop here with an error.
const MAX_EXPANSION_WORK: u64 = 1 << 23;

/// A token in flight: the lexer's token plus its hideset.
#[derive(Clone, Debug)]
struct PpToken {
    tok: Token,
    /// The macros that produced this token: they are not expanded again from it.
    hideset: HideSet,
}

impl PpToken {
    fn plain(tok: Token) -> PpToken {
        PpToken {
            tok,
            hideset: HideSet::default(),
        }
    }
}

/// Where relative `#include "x"` names of a file are looked up first.
#[derive(Clone, Debug)]
enum Origin {
    /// Not a file on disk nor an embedded header with a folder: no directory of its own.
    None,
    /// A file on disk: its directory.
    Dir(PathBuf),
    /// An embedded header named `dir/name`: `"x"` first tries the embedded header `dir/x`.
    Virtual(String),
}

impl Origin {
    /// The main file is a real file when its name is a path to one (the build pipeline may
    /// name it after a file it read); program sources given as strings have no directory.
    fn of_main_file(name: &str) -> Origin {
        let path = std::path::Path::new(name);
        if path.is_file() {
            let dir = path.parent().map(PathBuf::from).unwrap_or_default();
            return Origin::Dir(dir);
        }
        Origin::None
    }
}

/// A file being read.
struct Frame {
    file: FileId,
    tokens: Rc<[Token]>,
    /// The next token; the last token is `Eof` and is never passed.
    pos: usize,
    origin: Origin,
    /// `conds.len()` when the file was entered: conditionals below belong to includers.
    cond_base: usize,
    /// The lexer's diagnostics for this file, in position order, reported as reading passes
    /// them so they interleave with the preprocessor's in source order and so the ones in
    /// skipped groups can be dropped.
    lex_diags: Rc<[Diagnostic]>,
    next_diag: usize,
}

impl Frame {
    /// The token at the read position (`Eof` at the end).
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    /// Reports the lexer diagnostics that start before `upto`. In skipped groups the
    /// unterminated string and character constants are dropped: those groups are not
    /// tokens (C99 6.10.1p6; "don't" in an `#if 0` block is fine), but an unterminated
    /// comment still swallows the rest of the file and stays an error.
    fn flush_lex_diags(&mut self, upto: u32, skipping: bool, diags: &mut Diagnostics) {
        while let Some(d) = self.lex_diags.get(self.next_diag) {
            if d.span.start >= upto {
                break;
            }
            if !(skipping && d.message.starts_with("missing terminating")) {
                diags.push(d.clone());
            }
            self.next_diag += 1;
        }
    }
}

/// A file's tokens and the lexer's diagnostics about them.
type Lexed = (Rc<[Token]>, Rc<[Diagnostic]>);

/// One `#if`/`#ifdef`/`#ifndef` group being read.
#[derive(Clone, Copy, Debug)]
struct Cond {
    /// The directive that opened it (for "unterminated conditional directive").
    span: Span,
    /// Some group of this conditional has been (or is being) included: the rest are skipped.
    taken: bool,
    /// `#else` has been seen: a further `#elif` or `#else` is an error.
    else_seen: bool,
}

/// Where the expander reads the tokens after a macro name (its arguments): the program
/// itself, or a token list being expanded on its own (a macro argument, a `#if` line).
enum Src<'s> {
    Main,
    List(&'s mut Vec<PpToken>),
}

struct Preprocessor<'a> {
    sources: &'a mut SourceMap,
    diags: &'a mut Diagnostics,
    options: &'a PreprocessOptions,
    /// Files being read, innermost last.
    frames: Vec<Frame>,
    /// Expansion results waiting to be rescanned, next token last. They come before the
    /// rest of the innermost file.
    pending: Vec<PpToken>,
    conds: Vec<Cond>,
    macros: HashMap<Arc<str>, Rc<Macro>>,
    /// Hideset numbers of macro names (stable across `#undef` and redefinition).
    symbols: HashMap<Arc<str>, u32>,
    /// Files already opened: by canonical path and by embedded-header name.
    disk_files: HashMap<PathBuf, FileId>,
    header_files: HashMap<String, FileId>,
    /// Each file's tokens and lexer diagnostics, lexed once however often it is included.
    lexed: HashMap<FileId, Lexed>,
    /// Files with `#pragma once`.
    once: HashSet<FileId>,
    /// Inside a skipped group (lexer diagnostics are filtered).
    skipping: bool,
    includes: usize,
    work: u64,
    /// Expansion nesting (arguments expanded inside arguments).
    depth: u32,
    /// The work cap was hit: no more expansion.
    expansion_disabled: bool,
    /// Each cap is reported once, not once per attempt.
    reported_include_depth: bool,
    reported_include_count: bool,
    reported_expansion_depth: bool,
    /// A `defined` operator in the `#if` line being expanded was malformed (and reported).
    if_error: bool,
    /// `__DATE__` and `__TIME__`, fixed when the first is used.
    date_time: Option<(Arc<str>, Arc<str>)>,
}

impl<'a> Preprocessor<'a> {
    fn new(
        sources: &'a mut SourceMap,
        options: &'a PreprocessOptions,
        diags: &'a mut Diagnostics,
    ) -> Preprocessor<'a> {
        Preprocessor {
            sources,
            diags,
            options,
            frames: Vec::new(),
            pending: Vec::new(),
            conds: Vec::new(),
            macros: HashMap::new(),
            symbols: HashMap::new(),
            disk_files: HashMap::new(),
            header_files: HashMap::new(),
            lexed: HashMap::new(),
            once: HashSet::new(),
            skipping: false,
            includes: 0,
            work: 0,
            depth: 0,
            expansion_disabled: false,
            reported_include_depth: false,
            reported_include_count: false,
            reported_expansion_depth: false,
            if_error: false,
            date_time: None,
        }
    }

    /// The whole translation unit, macros expanded.
    fn run(&mut self) -> Vec<Token> {
        let mut out = Vec::new();
        loop {
            let Some(t) = self.next_raw(false) else {
                // Unreachable (the main file's `Eof` comes first), but an end is an end.
                let span = Span::default();
                out.push(eof_token(span));
                return out;
            };
            if t.tok.kind == TokenKind::Eof {
                out.push(t.tok);
                return out;
            }
            if t.tok.kind == TokenKind::Ident && self.try_expand(&t, &mut Src::Main, false) {
                continue;
            }
            out.push(t.tok);
            // A program (or a macro bomb) whose tokens would not fit stops here; the build
            // reads the refusal (`budget`).
            if out.len() % (1 << 16) == 0
                && crate::budget::exceeded(
                    "preprocessing",
                    out.len().saturating_mul(crate::budget::TOKEN_BYTES),
                )
            {
                out.push(eof_token(Span::default()));
                return out;
            }
        }
    }

    /// Starts reading `file` (lexing it the first time).
    fn push_file(&mut self, file: FileId, origin: Origin) {
        let (tokens, lex_diags) = match self.lexed.get(&file) {
            // A file read again: its lexer diagnostics were reported the first time.
            Some((tokens, _)) => (tokens.clone(), Rc::from(Vec::new())),
            None => {
                let text = self.sources.file(file).text.clone();
                let mut local = Diagnostics::new();
                let tokens = if &*self.sources.file(file).name == "<built-in>" {
                    lex_predefined(file, &text)
                } else {
                    lex::tokenize(file, &text, &mut local).into()
                };
                let mut found: Vec<Diagnostic> = local.iter().cloned().collect();
                found.sort_by_key(|d| d.span.start);
                let found: Rc<[Diagnostic]> = found.into();
                self.lexed.insert(file, (tokens.clone(), found.clone()));
                (tokens, found)
            }
        };
        self.frames.push(Frame {
            file,
            tokens,
            pos: 0,
            origin,
            cond_base: self.conds.len(),
            lex_diags,
            next_diag: 0,
        });
    }

    /// The next token of the program, directives executed but macros not expanded: first
    /// the expansion results waiting to be rescanned, then the innermost file. At the end
    /// of an included file reading goes on in the includer, unless `in_args` (macro
    /// arguments do not run past the end of a file): then the answer is `None`. At the end
    /// of the main file, its `Eof`.
    fn next_raw(&mut self, in_args: bool) -> Option<PpToken> {
        loop {
            if let Some(t) = self.pending.pop() {
                return Some(t);
            }
            let frame = self.frames.last_mut()?;
            let tok = frame.peek()?.clone();
            if tok.kind == TokenKind::Eof {
                if in_args {
                    return None;
                }
                self.end_of_file();
                if self.frames.is_empty() {
                    return Some(PpToken::plain(tok));
                }
                continue;
            }
            frame.pos += 1;
            frame.flush_lex_diags(tok.span.end, false, self.diags);
            if tok.at_line_start && tok.is_punct(Punct::Hash) {
                self.directive(&tok, in_args);
                continue;
            }
            return Some(PpToken::plain(tok));
        }
    }

    /// Leaves the innermost file: its open conditionals are errors (reported at the
    /// directive that opened them), its remaining lexer diagnostics are reported.
    fn end_of_file(&mut self) {
        let Some(mut frame) = self.frames.pop() else {
            return;
        };
        frame.flush_lex_diags(u32::MAX, false, self.diags);
        let base = frame.cond_base.min(self.conds.len());
        for cond in self.conds.drain(base..) {
            self.diags
                .error(cond.span, "unterminated conditional directive");
        }
    }

    /// Whether the next token of `src` is `(` (a function-like macro's name followed by
    /// anything else is an ordinary identifier, C99 6.10.3p10). Looks through newlines but
    /// not through directive lines or the end of a file.
    fn next_is_lparen(&self, src: &Src<'_>) -> bool {
        let next = match src {
            Src::List(stack) => stack.last().map(|t| &t.tok),
            Src::Main => match self.pending.last() {
                Some(t) => Some(&t.tok),
                None => self.frames.last().and_then(Frame::peek),
            },
        };
        next.is_some_and(|t| t.is_punct(Punct::LParen))
    }

    /// Takes the next unexpanded token of `src` (for macro arguments and operands).
    fn pull(&mut self, src: &mut Src<'_>) -> Option<PpToken> {
        match src {
            Src::List(stack) => stack.pop(),
            Src::Main => self.next_raw(true),
        }
    }

    /// Puts `tokens` back in front of `src`, to be read (and rescanned) next.
    fn unread(&mut self, src: &mut Src<'_>, tokens: Vec<PpToken>) {
        let stack = match src {
            Src::List(stack) => &mut **stack,
            Src::Main => &mut self.pending,
        };
        stack.extend(tokens.into_iter().rev());
    }

    /// Consumes and returns the rest of the innermost file's current line (the tokens up to
    /// the next line start): a directive's operands. Directives end at the newline, which
    /// the token stream knows only as the next token's `at_line_start`.
    fn rest_of_line(&mut self) -> Vec<Token> {
        let mut line = Vec::new();
        let skipping = self.skipping;
        let Some(frame) = self.frames.last_mut() else {
            return line;
        };
        while let Some(tok) = frame.peek() {
            if tok.at_line_start {
                break;
            }
            let tok = tok.clone();
            frame.pos += 1;
            frame.flush_lex_diags(tok.span.end, skipping, self.diags);
            line.push(tok);
        }
        line
    }

    /// Counts expansion work; past the cap, reports once and stops expanding.
    fn add_work(&mut self, amount: usize, at: Span) {
        self.work = self.work.saturating_add(amount as u64);
        if self.work > MAX_EXPANSION_WORK && !self.expansion_disabled {
            self.expansion_disabled = true;
            self.diags.error(
                at,
                "macro expansion is too large (more than 2^23 tokens and characters)",
            );
        }
    }
}

fn eof_token(span: Span) -> Token {
    Token {
        kind: TokenKind::Eof,
        text: "".into(),
        span,
        site: span,
        at_line_start: true,
        space_before: false,
    }
}
