//! Macro definitions (`#define`, `#undef`) and macro expansion (C99 6.10.3).
//!
//! Expansion follows Prosser's algorithm: a macro's replacement is computed with its
//! arguments substituted (fully expanded first, except next to `#` and `##`), every token of
//! it gets the invocation's hideset plus the macro's own name, and the result is put back in
//! front of the input to be rescanned together with the rest of it.

use std::rc::Rc;
use std::sync::Arc;

use super::hideset::HideSet;
use super::{MAX_EXPANSION_DEPTH, PpToken, Preprocessor, Src};
use crate::frontend::diag::Diagnostics;
use crate::frontend::lex;
use crate::frontend::source::Span;
use crate::frontend::token::{Punct, Token, TokenKind};

/// Macros whose replacement is computed, not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Builtin {
    File,
    Line,
    Date,
    Time,
    /// The `_Pragma("...")` operator (C99 6.10.9), which behaves like a macro invocation.
    Pragma,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum MacroKind {
    Object,
    /// Parameter names in order; a variadic macro's last one is `__VA_ARGS__` (or the GNU
    /// `name...` parameter's name).
    Function {
        params: Vec<Arc<str>>,
        variadic: bool,
    },
    Builtin(Builtin),
}

#[derive(Debug)]
pub(super) struct Macro {
    pub(super) name: Arc<str>,
    /// The name's hideset symbol.
    pub(super) sym: u32,
    pub(super) kind: MacroKind,
    /// The replacement list; the first token's `space_before` is cleared.
    pub(super) body: Vec<Token>,
    /// For each body token: the parameter it names, if any.
    pub(super) param_at: Vec<Option<usize>>,
    /// The name in the `#define` (for "previous definition is here").
    pub(super) span: Span,
}

impl Macro {
    /// C99 6.10.3p2: two definitions are the same when their parameters and replacement
    /// lists are identical, white-space separation included (not its amount).
    fn same_definition(&self, other: &Macro) -> bool {
        self.kind == other.kind
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| {
                    a.kind == b.kind
                        && a.text == b.text
                        && (i == 0 || a.space_before == b.space_before)
                })
    }

    fn params(&self) -> &[Arc<str>] {
        match &self.kind {
            MacroKind::Function { params, .. } => params,
            _ => &[],
        }
    }

    fn is_variadic(&self) -> bool {
        matches!(self.kind, MacroKind::Function { variadic: true, .. })
    }
}

impl Preprocessor<'_> {
    /// The hideset symbol of a macro name.
    fn symbol(&mut self, name: &Arc<str>) -> u32 {
        let next = self.symbols.len() as u32;
        *self.symbols.entry(name.clone()).or_insert(next)
    }

    /// Installs the macros computed at each use.
    pub(super) fn define_builtins(&mut self) {
        for (name, builtin) in [
            ("__FILE__", Builtin::File),
            ("__LINE__", Builtin::Line),
            ("__DATE__", Builtin::Date),
            ("__TIME__", Builtin::Time),
            ("_Pragma", Builtin::Pragma),
        ] {
            let name: Arc<str> = name.into();
            let sym = self.symbol(&name);
            let m = Macro {
                name: name.clone(),
                sym,
                kind: MacroKind::Builtin(builtin),
                body: Vec::new(),
                param_at: Vec::new(),
                span: Span::default(),
            };
            self.macros.insert(name, Rc::new(m));
        }
    }

    /// Checks the name of a `#define`, `#undef`, `#ifdef`... Reports and answers `false` when
    /// it is missing or not an identifier.
    pub(super) fn macro_name_ok(
        &mut self,
        name: Option<&Token>,
        directive: &Token,
        defining: bool,
    ) -> bool {
        let Some(name) = name else {
            self.diags.error(directive.span, "macro name missing");
            return false;
        };
        if name.kind != TokenKind::Ident {
            self.diags
                .error(name.span, "macro name must be an identifier");
            return false;
        }
        if defining && &*name.text == "defined" {
            self.diags
                .error(name.span, "'defined' cannot be used as a macro name");
            return false;
        }
        true
    }

    /// control-line: `# define identifier replacement-list new-line`
    ///             | `# define identifier lparen identifier-list? ) replacement-list new-line`
    ///             | `# define identifier lparen ... ) replacement-list new-line`
    ///             | `# define identifier lparen identifier-list , ... ) replacement-list new-line`
    ///
    /// (C99 6.10.3; `lparen` is a `(` with no white space before it.)
    pub(super) fn define_directive(&mut self, directive: &Token, line: &[Token]) {
        if !self.macro_name_ok(line.first(), directive, true) {
            return;
        }
        let name_tok = &line[0];
        let name = name_tok.text.clone();
        let mut rest = &line[1..];
        let kind = match rest.first() {
            Some(t) if t.is_punct(Punct::LParen) && !t.space_before => {
                let Some((params, variadic, used)) = self.macro_parameters(name_tok, rest) else {
                    return;
                };
                rest = &rest[used..];
                MacroKind::Function { params, variadic }
            }
            Some(t) if !t.space_before => {
                self.diags
                    .warning(t.span, "ISO C99 requires whitespace after the macro name");
                MacroKind::Object
            }
            _ => MacroKind::Object,
        };
        let mut body = rest.to_vec();
        if let Some(first) = body.first_mut() {
            first.space_before = false;
        }
        let params: &[Arc<str>] = match &kind {
            MacroKind::Function { params, .. } => params,
            _ => &[],
        };
        let param_at: Vec<Option<usize>> = body
            .iter()
            .map(|t| {
                if t.kind == TokenKind::Ident {
                    params.iter().position(|p| *p == t.text)
                } else {
                    None
                }
            })
            .collect();
        if !self.replacement_list_ok(&body, &param_at, &kind) {
            return;
        }
        let sym = self.symbol(&name);
        let m = Macro {
            name: name.clone(),
            sym,
            kind,
            body,
            param_at,
            span: name_tok.span,
        };
        if let Some(old) = self.macros.get(&name)
            && !old.same_definition(&m)
        {
            let old_span = old.span;
            let builtin = matches!(old.kind, MacroKind::Builtin(_));
            self.diags
                .warning(name_tok.span, format!("'{name}' macro redefined"));
            if !builtin {
                self.diags.note(old_span, "previous definition is here");
            }
        }
        self.macros.insert(name, Rc::new(m));
    }

    /// The parameter list of a function-like macro, from its `(`:
    ///
    /// `lparen identifier-list? )` | `lparen ... )` | `lparen identifier-list , ... )`,
    /// plus GNU's `lparen identifier-list? identifier ... )` (a named variadic parameter).
    ///
    /// Returns the names, whether it is variadic, and how many tokens the list took.
    fn macro_parameters(
        &mut self,
        name: &Token,
        toks: &[Token],
    ) -> Option<(Vec<Arc<str>>, bool, usize)> {
        let mut params: Vec<Arc<str>> = Vec::new();
        let mut i = 1;
        let missing_paren = |this: &mut Self, at: Span| {
            this.diags.error(at, "missing ')' in macro parameter list");
        };
        // An empty list.
        if toks.get(i).is_some_and(|t| t.is_punct(Punct::RParen)) {
            return Some((params, false, i + 1));
        }
        loop {
            let Some(t) = toks.get(i) else {
                missing_paren(self, toks.last().map_or(name.span, |t| t.span));
                return None;
            };
            if t.is_punct(Punct::Ellipsis) {
                params.push("__VA_ARGS__".into());
                return match toks.get(i + 1) {
                    Some(r) if r.is_punct(Punct::RParen) => Some((params, true, i + 2)),
                    other => {
                        missing_paren(self, other.unwrap_or(t).span);
                        None
                    }
                };
            }
            if t.kind != TokenKind::Ident {
                self.diags
                    .error(t.span, "invalid token in macro parameter list");
                return None;
            }
            if &*t.text == "__VA_ARGS__" {
                self.diags.error(
                    t.span,
                    "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
                );
                return None;
            }
            if params.contains(&t.text) {
                self.diags.error(
                    t.span,
                    format!("duplicate macro parameter name '{}'", t.text),
                );
                return None;
            }
            params.push(t.text.clone());
            i += 1;
            match toks.get(i) {
                Some(r) if r.is_punct(Punct::RParen) => return Some((params, false, i + 1)),
                Some(c) if c.is_punct(Punct::Comma) => i += 1,
                Some(e) if e.is_punct(Punct::Ellipsis) => {
                    return match toks.get(i + 1) {
                        Some(r) if r.is_punct(Punct::RParen) => Some((params, true, i + 2)),
                        other => {
                            missing_paren(self, other.unwrap_or(e).span);
                            None
                        }
                    };
                }
                Some(other) => {
                    self.diags
                        .error(other.span, "expected comma in macro parameter list");
                    return None;
                }
                None => {
                    missing_paren(self, t.span);
                    return None;
                }
            }
        }
    }

    /// The constraints of C99 6.10.3.2p1 and 6.10.3.3p1 on a replacement list, and of
    /// 6.10.3p5 on `__VA_ARGS__`.
    fn replacement_list_ok(
        &mut self,
        body: &[Token],
        param_at: &[Option<usize>],
        kind: &MacroKind,
    ) -> bool {
        let function_like = matches!(kind, MacroKind::Function { .. });
        let variadic = matches!(kind, MacroKind::Function { variadic: true, .. });
        if let Some(first) = body.first().filter(|t| t.is_punct(Punct::HashHash)) {
            self.diags
                .error(first.span, "'##' cannot appear at start of macro expansion");
            return false;
        }
        if let Some(last) = body.last().filter(|t| t.is_punct(Punct::HashHash)) {
            self.diags
                .error(last.span, "'##' cannot appear at end of macro expansion");
            return false;
        }
        for (i, t) in body.iter().enumerate() {
            if function_like
                && t.is_punct(Punct::Hash)
                && param_at.get(i + 1).copied().flatten().is_none()
            {
                self.diags
                    .error(t.span, "'#' is not followed by a macro parameter");
                return false;
            }
            if !variadic && t.is_ident("__VA_ARGS__") {
                self.diags.warning(
                    t.span,
                    "__VA_ARGS__ can only appear in the expansion of a C99 variadic macro",
                );
            }
        }
        true
    }

    /// control-line: `# undef identifier new-line`
    pub(super) fn undef_directive(&mut self, directive: &Token, line: &[Token]) {
        if !self.macro_name_ok(line.first(), directive, true) {
            return;
        }
        self.extra_tokens(&line[1..], "undef");
        self.macros.remove(&line[0].text);
    }

    /// Expands `t` (an identifier just read from `src`) if it names a macro it may expand:
    /// the replacement goes back in front of `src` to be rescanned, and the answer is
    /// `true`. Otherwise `false`, and `t` is an ordinary token. In `#if` lines (`in_if`),
    /// `defined` is evaluated here, so that it also works when a macro produced it.
    pub(super) fn try_expand(&mut self, t: &PpToken, src: &mut Src<'_>, in_if: bool) -> bool {
        if in_if && &*t.tok.text == "defined" {
            self.defined_operator(t, src);
            return true;
        }
        if self.expansion_disabled {
            return false;
        }
        let Some(m) = self.macros.get(&t.tok.text).cloned() else {
            return false;
        };
        if t.hideset.contains(m.sym) {
            return false;
        }
        match &m.kind {
            MacroKind::Builtin(b) => self.expand_builtin(*b, t, src),
            MacroKind::Object => {
                let hideset = t.hideset.with(m.sym);
                let out = self.substitute(&m, &[], &hideset, t.tok.site, t, in_if);
                self.unread(src, out);
                true
            }
            MacroKind::Function { .. } => {
                if !self.next_is_lparen(src) {
                    return false;
                }
                let Some((args, rparen)) = self.macro_arguments(&m, t, src) else {
                    return true;
                };
                // C99 6.10.3.4 as Prosser formalized it: the hideset of the name and of the
                // `)` both, so a name that only the arguments' source hides stays expandable.
                let hideset = t.hideset.intersection(&rparen.hideset).with(m.sym);
                let site = t.tok.site.to(rparen.tok.site);
                let out = self.substitute(&m, &args, &hideset, site, t, in_if);
                self.unread(src, out);
                true
            }
        }
    }

    /// The arguments of a function-like macro invocation, from its `(` (C99 6.10.3p10-12):
    ///
    /// `( argument-list? )` where arguments are balanced token sequences separated by
    /// top-level commas; the variadic parameter takes the rest, commas included.
    ///
    /// Returns the arguments (as many as the macro has parameters) and the `)`. Reports and
    /// returns `None` when the invocation is unterminated or has the wrong number of them.
    fn macro_arguments(
        &mut self,
        m: &Macro,
        name: &PpToken,
        src: &mut Src<'_>,
    ) -> Option<(Vec<Vec<PpToken>>, PpToken)> {
        let nparams = m.params().len();
        let variadic = m.is_variadic();
        // The `(` itself.
        self.pull(src)?;
        let mut args: Vec<Vec<PpToken>> = vec![Vec::new()];
        let mut depth = 0usize;
        let rparen = loop {
            let Some(t) = self.pull(src) else {
                self.diags
                    .error(name.tok.site, "unterminated function-like macro invocation");
                self.diags
                    .note(m.span, format!("macro '{}' defined here", m.name));
                return None;
            };
            if t.tok.is_punct(Punct::LParen) {
                depth += 1;
            } else if t.tok.is_punct(Punct::RParen) {
                if depth == 0 {
                    break t;
                }
                depth -= 1;
            } else if t.tok.is_punct(Punct::Comma)
                && depth == 0
                && !(variadic && args.len() >= nparams)
            {
                args.push(Vec::new());
                continue;
            }
            if let Some(arg) = args.last_mut() {
                arg.push(t);
            }
        };
        if nparams == 0 && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if variadic && args.len() + 1 == nparams {
            // `f(a)` for `f(x, ...)`: an empty variable argument (allowed by C2x and every
            // compiler).
            args.push(Vec::new());
        }
        if args.len() != nparams {
            let message = if args.len() < nparams {
                "too few arguments provided to function-like macro invocation"
            } else {
                "too many arguments provided to function-like macro invocation"
            };
            self.diags.error(name.tok.site.to(rparen.tok.site), message);
            self.diags
                .note(m.span, format!("macro '{}' defined here", m.name));
            return None;
        }
        Some((args, rparen))
    }

    /// Expands a token list on its own, as if it were the whole rest of the file (C99
    /// 6.10.3.1p1): for macro arguments and `#if`/`#include`/`#line` lines.
    pub(super) fn expand_list(&mut self, tokens: Vec<PpToken>, in_if: bool) -> Vec<PpToken> {
        // Most arguments are numbers and punctuation: nothing to expand.
        if !tokens.iter().any(|t| t.tok.kind == TokenKind::Ident) {
            return tokens;
        }
        if self.depth >= MAX_EXPANSION_DEPTH {
            if !self.reported_expansion_depth {
                self.reported_expansion_depth = true;
                let at = tokens.first().map_or(Span::default(), |t| t.tok.site);
                self.diags.error(
                    at,
                    format!(
                        "macro arguments nested too deeply (more than {MAX_EXPANSION_DEPTH} levels)"
                    ),
                );
            }
            return tokens;
        }
        self.depth += 1;
        let mut stack: Vec<PpToken> = tokens.into_iter().rev().collect();
        let mut out = Vec::with_capacity(stack.len());
        while let Some(t) = stack.pop() {
            if t.tok.kind == TokenKind::Ident
                && self.try_expand(&t, &mut Src::List(&mut stack), in_if)
            {
                continue;
            }
            out.push(t);
        }
        self.depth -= 1;
        out
    }

    /// A macro's replacement for one invocation (C99 6.10.3.1-3): parameters replaced by
    /// their arguments (fully expanded, or as written next to `#` and `##`), `#` and `##`
    /// applied. Every token gets `hideset` and the invocation's `site`; the first takes the
    /// name's place on its line.
    fn substitute(
        &mut self,
        m: &Macro,
        args: &[Vec<PpToken>],
        hideset: &HideSet,
        site: Span,
        name: &PpToken,
        in_if: bool,
    ) -> Vec<PpToken> {
        let body = &m.body;
        let function_like = matches!(m.kind, MacroKind::Function { .. });
        let va_index = if m.is_variadic() {
            m.params().len().checked_sub(1)
        } else {
            None
        };
        let mut expanded: Vec<Option<Vec<PpToken>>> = vec![None; args.len()];
        let mut out: Vec<PpToken> = Vec::with_capacity(body.len());
        // The last operand produced no token (C99's placemarker): a following `##` then
        // yields its right operand unchanged.
        let mut placemarker = false;
        let mut i = 0;
        while i < body.len() {
            // Work is counted as the replacement grows: once the cap is hit, expansions
            // still in progress are abandoned too (each could copy its arguments again).
            self.add_work(1, site);
            if self.expansion_disabled {
                return Vec::new();
            }
            let tok = &body[i];
            if tok.is_punct(Punct::HashHash) {
                let (rhs, next, rhs_param) = self.paste_operand(m, args, i + 1, function_like);
                self.add_work(rhs.len(), site);
                if placemarker {
                    placemarker = rhs.is_empty();
                    out.extend(rhs);
                } else if out.last().is_some_and(|l| l.tok.is_punct(Punct::Comma))
                    && rhs_param.is_some()
                    && rhs_param == va_index
                {
                    // GNU `, ## __VA_ARGS__`: the comma disappears with an empty variable
                    // argument, and no paste happens otherwise.
                    if rhs.is_empty() {
                        out.pop();
                    }
                    out.extend(rhs);
                } else if let Some(lhs) = out.pop() {
                    let mut rhs = rhs.into_iter();
                    match rhs.next() {
                        None => out.push(lhs),
                        Some(first) => {
                            match self.paste(&lhs, &first) {
                                Some(pasted) => out.push(pasted),
                                None => {
                                    self.diags.error(
                                        site,
                                        format!(
                                            "pasting formed '{}{}', an invalid preprocessing token",
                                            lhs.tok.text, first.tok.text
                                        ),
                                    );
                                    self.diags.note(
                                        tok.span,
                                        format!("expanded from macro '{}'", m.name),
                                    );
                                    out.push(lhs);
                                    out.push(first);
                                }
                            }
                            out.extend(rhs);
                        }
                    }
                }
                i = next;
                continue;
            }
            if function_like
                && tok.is_punct(Punct::Hash)
                && let Some(p) = m.param_at.get(i + 1).copied().flatten()
            {
                let s = self.stringize(args.get(p).map_or(&[], Vec::as_slice), tok, &body[i + 1]);
                out.push(s);
                placemarker = false;
                i += 2;
                continue;
            }
            if let Some(p) = m.param_at.get(i).copied().flatten() {
                let before_paste = body.get(i + 1).is_some_and(|t| t.is_punct(Punct::HashHash));
                if !before_paste && expanded.get(p).is_some_and(Option::is_none) {
                    let raw = args.get(p).cloned().unwrap_or_default();
                    let done = self.expand_list(raw, in_if);
                    if let Some(slot) = expanded.get_mut(p) {
                        *slot = Some(done);
                    }
                }
                let arg: &[PpToken] = if before_paste {
                    args.get(p).map_or(&[], Vec::as_slice)
                } else {
                    expanded.get(p).and_then(Option::as_deref).unwrap_or(&[])
                };
                placemarker = arg.is_empty();
                self.add_work(arg.len(), site);
                let start = out.len();
                out.extend_from_slice(arg);
                if let Some(first) = out.get_mut(start) {
                    first.tok.space_before = tok.space_before;
                }
                i += 1;
                continue;
            }
            out.push(PpToken::plain(tok.clone()));
            placemarker = false;
            i += 1;
        }
        if self.expansion_disabled {
            return Vec::new();
        }
        if let Some(first) = out.first_mut() {
            first.tok.space_before = name.tok.space_before;
            first.tok.at_line_start = name.tok.at_line_start;
        }
        // Every token gets the invocation's hideset; consecutive tokens nearly always share
        // a hideset, so one union serves a run of them.
        let mut memo: Option<(HideSet, HideSet)> = None;
        for t in &mut out {
            t.tok.site = site;
            let union = match &memo {
                Some((from, to)) if from.same(&t.hideset) => to.clone(),
                _ => {
                    let to = t.hideset.union(hideset);
                    memo = Some((t.hideset.clone(), to.clone()));
                    to
                }
            };
            t.hideset = union;
        }
        out
    }

    /// The right operand of a `##` at body position `at`: a parameter's argument as written,
    /// a stringized parameter, or one token. Returns it, the body position after it, and
    /// the parameter it came from.
    fn paste_operand(
        &mut self,
        m: &Macro,
        args: &[Vec<PpToken>],
        at: usize,
        function_like: bool,
    ) -> (Vec<PpToken>, usize, Option<usize>) {
        let Some(tok) = m.body.get(at) else {
            return (Vec::new(), at + 1, None);
        };
        if let Some(p) = m.param_at.get(at).copied().flatten() {
            return (args.get(p).cloned().unwrap_or_default(), at + 1, Some(p));
        }
        if function_like
            && tok.is_punct(Punct::Hash)
            && let Some(p) = m.param_at.get(at + 1).copied().flatten()
        {
            let s = self.stringize(args.get(p).map_or(&[], Vec::as_slice), tok, &m.body[at + 1]);
            return (vec![s], at + 2, None);
        }
        (vec![PpToken::plain(tok.clone())], at + 1, None)
    }

    /// The `#` operator (C99 6.10.3.2p2): the argument's spelling as a string literal, white
    /// space between tokens becoming one space, `"` and `\` escaped inside string and
    /// character literals.
    fn stringize(&mut self, arg: &[PpToken], hash: &Token, param: &Token) -> PpToken {
        let mut text = String::from("\"");
        for (i, t) in arg.iter().enumerate() {
            if i > 0 && t.tok.space_before {
                text.push(' ');
            }
            if matches!(t.tok.kind, TokenKind::Str | TokenKind::Char) {
                for c in t.tok.text.chars() {
                    if c == '"' || c == '\\' {
                        text.push('\\');
                    }
                    text.push(c);
                }
            } else {
                text.push_str(&t.tok.text);
            }
        }
        text.push('"');
        self.add_work(text.len(), hash.span);
        let span = hash.span.to(param.span);
        PpToken::plain(Token {
            kind: TokenKind::Str,
            text: text.into(),
            span,
            site: span,
            at_line_start: false,
            space_before: hash.space_before,
        })
    }

    /// The `##` operator (C99 6.10.3.3p3): `lhs` and `rhs` spelled together must lex as
    /// exactly one token. `None` when they do not.
    fn paste(&mut self, lhs: &PpToken, rhs: &PpToken) -> Option<PpToken> {
        let text = format!("{}{}", lhs.tok.text, rhs.tok.text);
        self.add_work(text.len(), lhs.tok.span);
        let mut scratch = Diagnostics::new();
        let lexed = lex::tokenize(lhs.tok.span.file, &text, &mut scratch);
        let [one, _eof] = lexed.as_slice() else {
            return None;
        };
        if scratch.iter().next().is_some()
            || one.text.len() != text.len()
            || one.kind == TokenKind::Eof
        {
            return None;
        }
        Some(PpToken {
            tok: Token {
                kind: one.kind,
                text: text.into(),
                span: lhs.tok.span.to(rhs.tok.span),
                site: lhs.tok.site,
                at_line_start: lhs.tok.at_line_start,
                space_before: lhs.tok.space_before,
            },
            hideset: lhs.hideset.intersection(&rhs.hideset),
        })
    }

    /// The `defined` operator of `#if` (C99 6.10.1p1):
    ///
    /// `defined identifier` | `defined ( identifier )`
    ///
    /// Becomes `1` or `0`. A malformed one is reported and makes the whole `#if` false.
    fn defined_operator(&mut self, t: &PpToken, src: &mut Src<'_>) {
        let mut end = t.tok.span;
        let mut name = self.pull(src);
        let parenthesized = name.as_ref().is_some_and(|n| n.tok.is_punct(Punct::LParen));
        if parenthesized {
            if let Some(p) = &name {
                end = p.tok.span;
            }
            name = self.pull(src);
        }
        let value = match &name {
            Some(n) if n.tok.kind == TokenKind::Ident => {
                end = n.tok.span;
                self.macros.contains_key(&n.tok.text)
            }
            Some(n) => {
                self.diags
                    .error(n.tok.site, "macro name must be an identifier");
                self.if_error = true;
                false
            }
            None => {
                self.diags.error(t.tok.site, "macro name missing");
                self.if_error = true;
                false
            }
        };
        if parenthesized
            && name
                .as_ref()
                .is_some_and(|n| n.tok.kind == TokenKind::Ident)
        {
            match self.pull(src) {
                Some(r) if r.tok.is_punct(Punct::RParen) => end = r.tok.span,
                other => {
                    let at = other.as_ref().map_or(end, |o| o.tok.site);
                    self.diags.error(at, "missing ')' after 'defined'");
                    self.if_error = true;
                }
            }
        }
        let span = t.tok.span.to(end);
        let tok = Token {
            kind: TokenKind::Number,
            text: if value { "1" } else { "0" }.into(),
            span,
            site: if t.tok.site == t.tok.span {
                span
            } else {
                t.tok.site
            },
            at_line_start: t.tok.at_line_start,
            space_before: t.tok.space_before,
        };
        self.unread(
            src,
            vec![PpToken {
                tok,
                hideset: HideSet::default(),
            }],
        );
        // The number is read next by the caller's loop; it is not an identifier, so it is
        // not expanded again.
    }

    /// `__FILE__`, `__LINE__`, `__DATE__`, `__TIME__` (C99 6.10.8) and `_Pragma` (6.10.9).
    fn expand_builtin(&mut self, b: Builtin, t: &PpToken, src: &mut Src<'_>) -> bool {
        let site = t.tok.site;
        let (kind, text): (TokenKind, Arc<str>) = match b {
            Builtin::File => {
                let name = self.sources.locate(site.file, site.start).name;
                (TokenKind::Str, quote(&name).into())
            }
            Builtin::Line => {
                // In an invocation over several lines, the line of its `)` (as clang does).
                let last = site.end.saturating_sub(1).max(site.start);
                let line = self.sources.locate(site.file, last).line;
                (TokenKind::Number, line.to_string().into())
            }
            Builtin::Date => (TokenKind::Str, self.date_time().0),
            Builtin::Time => (TokenKind::Str, self.date_time().1),
            Builtin::Pragma => return self.pragma_operator(t, src),
        };
        let tok = Token {
            kind,
            text,
            ..t.tok.clone()
        };
        self.unread_expanded(src, tok, t);
        true
    }

    /// Puts back one token that replaced `t`, hidden from `t`'s macros.
    fn unread_expanded(&mut self, src: &mut Src<'_>, tok: Token, t: &PpToken) {
        self.unread(
            src,
            vec![PpToken {
                tok,
                hideset: t.hideset.clone(),
            }],
        );
    }

    /// `_Pragma ( string-literal )` (C99 6.10.9): the string, destringized, is a `#pragma`
    /// line's tokens; it becomes one `Pragma` token where the operator was.
    fn pragma_operator(&mut self, t: &PpToken, src: &mut Src<'_>) -> bool {
        const MESSAGE: &str = "_Pragma takes a parenthesized string literal";
        if !self.next_is_lparen(src) {
            self.diags.error(t.tok.site, MESSAGE);
            return true;
        }
        let lparen = self.pull(src);
        let string = self.pull(src);
        let Some(string) = string.filter(|s| s.tok.kind == TokenKind::Str) else {
            self.diags
                .error(lparen.map_or(t.tok.site, |l| l.tok.site), MESSAGE);
            return true;
        };
        let rparen = self.pull(src);
        let Some(rparen) = rparen.filter(|r| r.tok.is_punct(Punct::RParen)) else {
            self.diags.error(string.tok.site, MESSAGE);
            return true;
        };
        let text = destringize(&string.tok.text);
        let mut scratch = Diagnostics::new();
        let words: Vec<String> = lex::tokenize(t.tok.span.file, &text, &mut scratch)
            .into_iter()
            .filter(|w| w.kind != TokenKind::Eof)
            .map(|w| w.text.to_string())
            .collect();
        let span = t.tok.span.to(rparen.tok.span);
        let site = t.tok.site.to(rparen.tok.site);
        let tok = Token {
            kind: TokenKind::Pragma,
            text: words.join(" ").into(),
            span,
            site,
            ..t.tok.clone()
        };
        self.unread_expanded(src, tok, t);
        true
    }

    /// `__DATE__` ("Mmm dd yyyy") and `__TIME__` ("hh:mm:ss"), in UTC (there is no time-zone
    /// database without libc), fixed for the whole translation unit.
    fn date_time(&mut self) -> (Arc<str>, Arc<str>) {
        if let Some(dt) = &self.date_time {
            return dt.clone();
        }
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let (date, time) = format_date_time(secs);
        let dt: (Arc<str>, Arc<str>) = (date.into(), time.into());
        self.date_time = Some(dt.clone());
        dt
    }
}

/// `__DATE__` and `__TIME__` strings (quotes included) for `secs` since 1970 UTC.
pub(super) fn format_date_time(secs: u64) -> (String, String) {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = (secs / 86_400) as i64;
    let of_day = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let month_name = MONTHS.get((month - 1) as usize).copied().unwrap_or("Jan");
    let date = format!("\"{month_name} {day:>2} {year}\"");
    let time = format!(
        "\"{:02}:{:02}:{:02}\"",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    );
    (date, time)
}

/// A string literal whose contents are `s` (for `__FILE__`).
pub(super) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// C99 6.10.9p1's destringizing: the quotes (and an `L` prefix) removed, `\"` and `\\`
/// replaced by `"` and `\`. Also how `#line`'s file name is read.
pub(super) fn destringize(literal: &str) -> String {
    let inner = literal.strip_prefix('L').unwrap_or(literal);
    let inner = inner.strip_prefix('"').unwrap_or(inner);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n @ ('"' | '\\')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(
            format_date_time(0),
            ("\"Jan  1 1970\"".into(), "\"00:00:00\"".into())
        );
        // 2024-02-29 13:05:09 UTC.
        assert_eq!(
            format_date_time(1_709_211_909),
            ("\"Feb 29 2024\"".into(), "\"13:05:09\"".into())
        );
    }

    #[test]
    fn destringizing_undoes_two_escapes_only() {
        assert_eq!(destringize(r#""a \"b\" \\ \n""#), r#"a "b" \ \n"#);
        assert_eq!(quote(r#"C:\x"y"#), r#""C:\\x\"y""#);
    }
}
