//! Directive lines (C99 6.10): conditional inclusion, source file inclusion, `#line`,
//! `#error`/`#warning`, `#pragma` and the null directive. `#define`/`#undef` are in
//! `macros`.

use std::path::{Path, PathBuf};

use super::macros::destringize;
use super::{Cond, MAX_INCLUDE_DEPTH, MAX_INCLUDES, Origin, PpToken, Preprocessor};
use crate::frontend::source::{FileId, Span};
use crate::frontend::token::{Punct, Token, TokenKind};

impl Preprocessor<'_> {
    /// control-line / if-section / non-directive: a line whose first token is `#` (already
    /// read); dispatches on the directive name. `in_args`: the line sits inside a macro
    /// invocation's arguments.
    pub(super) fn directive(&mut self, hash: &Token, in_args: bool) {
        let line = self.rest_of_line();
        let Some(name) = line.first() else { return }; // The null directive.
        let rest = &line[1..];
        match (name.kind, &*name.text) {
            (TokenKind::Ident, "define") => self.define_directive(name, rest),
            (TokenKind::Ident, "undef") => self.undef_directive(name, rest),
            (TokenKind::Ident, "include") => self.include_directive(name, rest, in_args),
            (TokenKind::Ident, "if") => self.if_directive(hash, name, rest),
            (TokenKind::Ident, "ifdef") => self.ifdef_directive(hash, name, rest, true),
            (TokenKind::Ident, "ifndef") => self.ifdef_directive(hash, name, rest, false),
            (TokenKind::Ident, "elif") => self.elif_or_else_in_taken_group(name, rest, true),
            (TokenKind::Ident, "else") => self.elif_or_else_in_taken_group(name, rest, false),
            (TokenKind::Ident, "endif") => self.endif_directive(name, rest),
            (TokenKind::Ident, "line") => self.line_directive(name, rest, false),
            (TokenKind::Ident, "error") => self.diagnostic_directive(name, rest, true),
            (TokenKind::Ident, "warning") => self.diagnostic_directive(name, rest, false),
            (TokenKind::Ident, "pragma") => self.pragma_directive(hash, name, rest),
            // GNU line markers (`# 12 "file.cl"`), which `-E` output is full of.
            (TokenKind::Number, _) => self.line_directive(name, &line, true),
            _ => self
                .diags
                .error(name.span, "invalid preprocessing directive"),
        }
    }

    /// Warns about tokens after a directive's operands (clang's wording).
    pub(super) fn extra_tokens(&mut self, extra: &[Token], directive: &str) {
        if let (Some(first), Some(last)) = (extra.first(), extra.last()) {
            self.diags.warning(
                first.span.to(last.span),
                format!("extra tokens at end of #{directive} directive"),
            );
        }
    }

    // ---- Conditional inclusion (C99 6.10.1) ----

    /// if-group: `# if constant-expression new-line group?`
    fn if_directive(&mut self, hash: &Token, name: &Token, rest: &[Token]) {
        let value = self.condition(name, rest);
        self.enter_conditional(hash, name, value);
    }

    /// if-group: `# ifdef identifier new-line group?` | `# ifndef identifier new-line group?`
    fn ifdef_directive(&mut self, hash: &Token, name: &Token, rest: &[Token], want_defined: bool) {
        let value = if self.macro_name_ok(rest.first(), name, false) {
            self.extra_tokens(&rest[1..], &name.text);
            self.macros.contains_key(&rest[0].text) == want_defined
        } else {
            false
        };
        self.enter_conditional(hash, name, value);
    }

    fn enter_conditional(&mut self, hash: &Token, name: &Token, value: bool) {
        self.conds.push(Cond {
            span: hash.span.to(name.span),
            taken: value,
            else_seen: false,
        });
        if !value {
            self.skip_group();
        }
    }

    /// The value of a `#if` or `#elif` line: macros expanded (with `defined` evaluated),
    /// then the expression (C99 6.10.1p3-4). Any error makes it false.
    fn condition(&mut self, name: &Token, rest: &[Token]) -> bool {
        if rest.is_empty() {
            self.diags
                .error(name.span, format!("#{} with no expression", name.text));
            return false;
        }
        self.if_error = false;
        let tokens = rest.iter().cloned().map(PpToken::plain).collect();
        let expanded = self.expand_list(tokens, true);
        if std::mem::take(&mut self.if_error) {
            return false;
        }
        let end = rest.last().map_or(name.span, |t| Span {
            start: t.span.end,
            ..t.span
        });
        super::expr::evaluate(&expanded, end, self.diags).unwrap_or(false)
    }

    /// The innermost conditional of the current file, or an error naming `name` (a
    /// `#elif`/`#else`/`#endif` without `#if`).
    fn current_conditional(&mut self, name: &Token) -> Option<usize> {
        let base = self.frames.last().map_or(0, |f| f.cond_base);
        if self.conds.len() > base {
            Some(self.conds.len() - 1)
        } else {
            self.diags
                .error(name.span, format!("#{} without #if", name.text));
            None
        }
    }

    /// `#elif` or `#else` met while including a group: that group was the one taken, so
    /// everything up to `#endif` is skipped (a later `#elif` is not even evaluated).
    fn elif_or_else_in_taken_group(&mut self, name: &Token, rest: &[Token], is_elif: bool) {
        let Some(index) = self.current_conditional(name) else {
            return;
        };
        self.check_else_order(index, name, rest, is_elif);
        self.skip_group();
    }

    /// `#else` after `#else` and `#elif` after `#else` are errors; `#else` takes no operands.
    fn check_else_order(&mut self, index: usize, name: &Token, rest: &[Token], is_elif: bool) {
        let Some(cond) = self.conds.get_mut(index) else {
            return;
        };
        if cond.else_seen {
            let message = if is_elif {
                "#elif after #else"
            } else {
                "#else after #else"
            };
            self.diags.error(name.span, message);
        }
        if !is_elif {
            cond.else_seen = true;
            self.extra_tokens(rest, "else");
        }
    }

    /// endif-line: `# endif new-line`
    fn endif_directive(&mut self, name: &Token, rest: &[Token]) {
        if self.current_conditional(name).is_some() {
            self.conds.pop();
        }
        self.extra_tokens(rest, "endif");
    }

    /// Skips a group whose condition is false (C99 6.10.1p6): only directive names are
    /// looked at, to track nesting and find the `#elif`, `#else` or `#endif` that ends it.
    /// Returns at the group that is included next (or after `#endif`, or at end of file).
    fn skip_group(&mut self) {
        let was_skipping = std::mem::replace(&mut self.skipping, true);
        let mut depth = 0usize;
        while let Some(frame) = self.frames.last_mut() {
            let Some(tok) = frame.peek().cloned() else {
                break;
            };
            if tok.kind == TokenKind::Eof {
                break;
            }
            frame.pos += 1;
            frame.flush_lex_diags(tok.span.end, true, self.diags);
            if !(tok.at_line_start && tok.is_punct(Punct::Hash)) {
                continue;
            }
            let line = self.rest_of_line();
            let Some(name) = line.first().filter(|n| n.kind == TokenKind::Ident) else {
                continue;
            };
            let rest = &line[1..];
            match &*name.text {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" if depth > 0 => depth -= 1,
                "endif" => {
                    self.endif_directive(name, rest);
                    break;
                }
                "else" | "elif" if depth == 0 => {
                    let is_elif = &*name.text == "elif";
                    let Some(index) = self.current_conditional(name) else {
                        continue;
                    };
                    self.check_else_order(index, name, rest, is_elif);
                    let taken = self.conds.get(index).is_some_and(|c| c.taken);
                    if taken {
                        continue;
                    }
                    let value = !is_elif || self.condition(name, rest);
                    if value {
                        if let Some(cond) = self.conds.get_mut(index) {
                            cond.taken = true;
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        self.skipping = was_skipping;
    }

    // ---- Source file inclusion (C99 6.10.2) ----

    /// control-line: `# include pp-tokens new-line`, where the tokens are (or expand to)
    /// `"q-char-sequence"` or `<h-char-sequence>`.
    fn include_directive(&mut self, name: &Token, rest: &[Token], in_args: bool) {
        if in_args {
            self.diags.error(
                name.span,
                "embedding a #include directive within macro arguments is not supported",
            );
            return;
        }
        let Some((header, quoted, span)) = self.header_name(name, rest) else {
            return;
        };
        if header.is_empty() {
            self.diags.error(span, "empty filename");
            return;
        }
        let Some((file, origin)) = self.find_include(&header, quoted) else {
            self.diags.error(span, format!("'{header}' file not found"));
            return;
        };
        if self.frames.len() > MAX_INCLUDE_DEPTH {
            if !self.reported_include_depth {
                self.reported_include_depth = true;
                self.diags.error(
                    span,
                    format!("#include nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)"),
                );
            }
            return;
        }
        if self.includes >= MAX_INCLUDES {
            if !self.reported_include_count {
                self.reported_include_count = true;
                self.diags.error(
                    span,
                    format!("too many #include directives (more than {MAX_INCLUDES})"),
                );
            }
            return;
        }
        if self.once.contains(&file) {
            return;
        }
        self.includes += 1;
        self.push_file(file, origin);
    }

    /// The header name of an `#include` line: the name, whether it was quoted, and where it
    /// is. The `"..."` and `<...>` forms are taken as written; any other line is macro
    /// expanded first (C99 6.10.2p4).
    fn header_name(&mut self, name: &Token, rest: &[Token]) -> Option<(String, bool, Span)> {
        const EXPECTED: &str = "expected \"FILENAME\" or <FILENAME>";
        let Some(first) = rest.first() else {
            self.diags.error(name.span, EXPECTED);
            return None;
        };
        if first.kind == TokenKind::Str {
            self.extra_tokens(&rest[1..], "include");
            return Some((quoted_contents(&first.text), true, first.span));
        }
        if first.is_punct(Punct::Lt) {
            let Some(close) = rest.iter().position(|t| t.is_punct(Punct::Gt)) else {
                self.diags
                    .error(first.span, "missing terminating '>' character");
                return None;
            };
            self.extra_tokens(&rest[close + 1..], "include");
            let span = first.span.to(rest[close].span);
            // The characters between the brackets as written: `<a//b.h>` or `<a b.h>` are
            // not token sequences.
            let text = self.sources.file(first.span.file).text.clone();
            let inner = text
                .get(first.span.end as usize..rest[close].span.start as usize)
                .unwrap_or_default();
            return Some((inner.to_string(), false, span));
        }
        let span = first.span.to(rest.last().map_or(first.span, |t| t.span));
        let expanded = self.expand_list(rest.iter().cloned().map(PpToken::plain).collect(), false);
        match expanded.first() {
            Some(s) if s.tok.kind == TokenKind::Str => {
                self.extra_tokens(
                    &expanded[1..]
                        .iter()
                        .map(|t| t.tok.clone())
                        .collect::<Vec<_>>(),
                    "include",
                );
                Some((quoted_contents(&s.tok.text), true, span))
            }
            Some(l) if l.tok.is_punct(Punct::Lt) => {
                let Some(close) = expanded.iter().position(|t| t.tok.is_punct(Punct::Gt)) else {
                    self.diags.error(span, "missing terminating '>' character");
                    return None;
                };
                // The spellings joined, a space where there was white space (as GCC does).
                let mut inner = String::new();
                for (i, t) in expanded[1..close].iter().enumerate() {
                    if i > 0 && t.tok.space_before {
                        inner.push(' ');
                    }
                    inner.push_str(&t.tok.text);
                }
                Some((inner, false, span))
            }
            _ => {
                self.diags.error(span, EXPECTED);
                None
            }
        }
    }

    /// Finds a header: `"x"` first beside the including file, then (both forms) in the
    /// embedded headers, then in the `-I` directories in order. Absolute names are opened
    /// as they are.
    fn find_include(&mut self, header: &str, quoted: bool) -> Option<(FileId, Origin)> {
        let path = Path::new(header);
        if path.is_absolute() {
            return self.open_disk(path);
        }
        if quoted {
            let origin = self
                .frames
                .last()
                .map_or(Origin::None, |f| f.origin.clone());
            match origin {
                Origin::Dir(dir) => {
                    if let Some(found) = self.open_disk(&dir.join(header)) {
                        return Some(found);
                    }
                }
                Origin::Virtual(prefix) if !prefix.is_empty() => {
                    if let Some(found) = self.open_embedded(&format!("{prefix}{header}")) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        if let Some(found) = self.open_embedded(header) {
            return Some(found);
        }
        let dirs = self.options.include_dirs.clone();
        dirs.iter()
            .find_map(|dir| self.open_disk(&dir.join(header)))
    }

    /// An embedded header by name (a leading `./` does not matter).
    fn open_embedded(&mut self, name: &str) -> Option<(FileId, Origin)> {
        let wanted = name.trim_start_matches("./");
        let (key, text) = self
            .options
            .headers
            .iter()
            .find(|(n, _)| n.trim_start_matches("./") == wanted)?;
        let prefix = key
            .rfind('/')
            .map_or(String::new(), |i| key[..=i].to_string());
        let origin = Origin::Virtual(prefix);
        if let Some(&id) = self.header_files.get(key) {
            return Some((id, origin));
        }
        let id = self.sources.add(key, text);
        self.header_files.insert(key.clone(), id);
        Some((id, origin))
    }

    /// A file on disk, if it exists (read once per canonical path).
    fn open_disk(&mut self, path: &Path) -> Option<(FileId, Origin)> {
        if !path.is_file() {
            return None;
        }
        let origin = Origin::Dir(path.parent().map(PathBuf::from).unwrap_or_default());
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if let Some(&id) = self.disk_files.get(&key) {
            return Some((id, origin));
        }
        let bytes = std::fs::read(path).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let id = self.sources.add(&path.display().to_string(), &text);
        self.disk_files.insert(key, id);
        Some((id, origin))
    }

    // ---- Line control (C99 6.10.4) ----

    /// control-line: `# line digit-sequence new-line`
    ///             | `# line digit-sequence "s-char-sequence" new-line`
    /// (macro expanded when it does not match), and GNU's `# digit-sequence "name" flags`.
    fn line_directive(&mut self, name: &Token, rest: &[Token], gnu_marker: bool) {
        let expanded: Vec<Token> = if rest.first().is_some_and(|t| t.kind == TokenKind::Number) {
            rest.to_vec()
        } else {
            let tokens = rest.iter().cloned().map(PpToken::plain).collect();
            self.expand_list(tokens, false)
                .into_iter()
                .map(|t| t.tok)
                .collect()
        };
        let Some(number) = expanded.first() else {
            self.diags.error(
                name.span,
                "#line directive requires a simple digit sequence",
            );
            return;
        };
        let digits = &*number.text;
        if number.kind != TokenKind::Number || !digits.bytes().all(|b| b.is_ascii_digit()) {
            self.diags.error(
                number.site,
                "#line directive requires a simple digit sequence",
            );
            return;
        }
        let line = match digits.parse::<u32>() {
            Ok(n) if n <= 2_147_483_647 => n,
            _ => {
                self.diags.error(number.site, "#line number out of range");
                return;
            }
        };
        let file_name = match expanded.get(1) {
            None => None,
            Some(s) if s.kind == TokenKind::Str => {
                if !gnu_marker {
                    self.extra_tokens(&expanded[2..], "line");
                }
                Some(destringize(&s.text))
            }
            Some(other) => {
                self.diags
                    .error(other.site, "invalid filename for #line directive");
                return;
            }
        };
        let Some(frame) = self.frames.last() else {
            return;
        };
        let file = frame.file;
        // The line after the directive starts after the newline that ends it.
        let end = rest.last().map_or(name.span.end, |t| t.span.end) as usize;
        let text = self.sources.file(file).text.clone();
        let next_line = text
            .get(end..)
            .and_then(|s| s.find('\n'))
            .map_or(text.len(), |i| end + i + 1);
        self.sources
            .remap_lines(file, next_line, line, file_name.as_deref());
    }

    // ---- Diagnostics and pragmas (C99 6.10.5-6, GNU #warning) ----

    /// control-line: `# error pp-tokens? new-line` | `# warning pp-tokens? new-line`
    ///
    /// The message is the rest of the line as written, comments included (as clang prints
    /// it), up to the end of the line holding the last token.
    fn diagnostic_directive(&mut self, name: &Token, rest: &[Token], is_error: bool) {
        let message = match (rest.first(), rest.last()) {
            (Some(first), Some(last)) if first.span.file == last.span.file => {
                let text = self.sources.file(first.span.file).text.clone();
                let start = first.span.start as usize;
                let end = last.span.end as usize;
                let end = text
                    .get(end..)
                    .and_then(|s| s.find('\n'))
                    .map_or(text.len(), |i| end + i);
                let raw = text.get(start..end).unwrap_or_default();
                // A line splice's newline must not break the rendered line.
                raw.replace("\\\r\n", "")
                    .replace("\\\n", "")
                    .trim_end()
                    .to_string()
            }
            _ => String::new(),
        };
        if is_error {
            self.diags.error(name.span, message);
        } else {
            self.diags.warning(name.span, message);
        }
    }

    /// control-line: `# pragma pp-tokens? new-line` (C99 6.10.6)
    ///
    /// `#pragma once` is the preprocessor's; every other pragma becomes one `Pragma` token
    /// whose text is its tokens joined by single spaces, for the parser to interpret. The
    /// tokens are not macro expanded (`OPENCL EXTENSION cl_khr_fp64` must keep its name),
    /// except the operand of `unroll`, as clang does, so `#pragma unroll N` works.
    fn pragma_directive(&mut self, hash: &Token, name: &Token, rest: &[Token]) {
        if rest.len() == 1 && rest[0].is_ident("once") {
            if let Some(frame) = self.frames.last() {
                self.once.insert(frame.file);
            }
            return;
        }
        let mut words: Vec<String> = Vec::new();
        if rest.first().is_some_and(|t| t.is_ident("unroll")) {
            words.push("unroll".into());
            let operand = rest[1..].iter().cloned().map(PpToken::plain).collect();
            words.extend(
                self.expand_list(operand, false)
                    .iter()
                    .map(|t| t.tok.text.to_string()),
            );
        } else {
            words.extend(rest.iter().map(|t| t.text.to_string()));
        }
        let span = hash.span.to(rest.last().unwrap_or(name).span);
        let tok = Token {
            kind: TokenKind::Pragma,
            text: words.join(" ").into(),
            span,
            site: span,
            at_line_start: true,
            space_before: hash.space_before,
        };
        self.pending.push(PpToken::plain(tok));
    }
}

/// The characters between the quotes of a `"..."` header name (no escapes: C99 6.10.2
/// leaves `\` in header names to the implementation, and Windows paths want it literal).
fn quoted_contents(text: &str) -> String {
    let inner = text.strip_prefix('"').unwrap_or(text);
    inner.strip_suffix('"').unwrap_or(inner).to_string()
}
