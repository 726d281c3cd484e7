//! Tokens for the parser tests: the lexer's output with `#pragma` lines turned into
//! `Pragma` tokens, as the preprocessor hands them over (the tests do not depend on the
//! preprocessor; their inputs use no other directive).

use clift_compiler::frontend::diag::Diagnostics;
use clift_compiler::frontend::lex;
use clift_compiler::frontend::source::{FileId, Span};
use clift_compiler::frontend::token::{Punct, Token, TokenKind};

/// Lexes `text` and folds each `#pragma ...` line into one `Pragma` token whose text is the
/// rest of the line, words separated by single spaces.
pub fn tokens(file: FileId, text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    let raw = lex::tokenize(file, text, diags);
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let t = &raw[i];
        let is_pragma = t.is_punct(Punct::Hash)
            && t.at_line_start
            && raw
                .get(i + 1)
                .is_some_and(|n| n.is_ident("pragma") && !n.at_line_start);
        if !is_pragma {
            out.push(t.clone());
            i += 1;
            continue;
        }
        let mut j = i + 2;
        let mut words: Vec<&str> = Vec::new();
        while j < raw.len() && !raw[j].at_line_start && raw[j].kind != TokenKind::Eof {
            words.push(&raw[j].text);
            j += 1;
        }
        let end = raw[j - 1].span.end;
        let span = Span {
            file,
            start: t.span.start,
            end,
        };
        out.push(Token {
            kind: TokenKind::Pragma,
            text: words.join(" ").into(),
            span,
            site: span,
            at_line_start: true,
            space_before: t.space_before,
        });
        i = j;
    }
    out
}
