//! The lexer: source text to preprocessing tokens (C99 6.4, translation phases 1–3).
//!
//! Line splices (backslash-newline) are removed from token spellings but kept in spans, so a
//! diagnostic still points at the right characters. Comments become white space.

use std::collections::HashSet;
use std::sync::Arc;

use super::diag::Diagnostics;
use super::source::{FileId, Span};
use super::token::{Punct, Token, TokenKind};

/// Splits `text` (file `file`) into tokens, ending with one `Eof` token. Problems
/// (unterminated comments, strings and character constants) are reported to `diags`.
pub fn tokenize(file: FileId, text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    let mut lexer = Lexer {
        file,
        text: text.as_bytes(),
        src: text,
        pos: 0,
        diags,
        interned: HashSet::new(),
    };
    lexer.run()
}

/// Spellings up to this length are shared between the tokens that have them.
const INTERNED_LEN: usize = 32;

struct Lexer<'a> {
    file: FileId,
    text: &'a [u8],
    src: &'a str,
    pos: usize,
    diags: &'a mut Diagnostics,
    interned: HashSet<Arc<str>>,
}

impl Lexer<'_> {
    fn run(&mut self) -> Vec<Token> {
        let mut tokens = Vec::new();
        let mut at_line_start = true;
        let mut space_before = false;
        loop {
            let before = self.pos;
            let newline = self.skip_space();
            if newline {
                at_line_start = true;
            }
            space_before |= self.pos != before;
            let start = self.pos;
            let Some(kind) = self.token_kind() else {
                let span = Span::new(self.file, start, start);
                tokens.push(Token {
                    kind: TokenKind::Eof,
                    text: "".into(),
                    span,
                    site: span,
                    at_line_start: true,
                    space_before,
                });
                return tokens;
            };
            let span = Span::new(self.file, start, self.pos);
            let src = self.src;
            let text = self.intern(&spelling(src, start, self.pos));
            tokens.push(Token {
                kind,
                text,
                span,
                site: span,
                at_line_start,
                space_before,
            });
            at_line_start = false;
            space_before = false;
        }
    }

    /// The byte at `pos + ahead`, looking through line splices.
    fn peek_at(&self, ahead: usize) -> Option<u8> {
        let mut p = self.pos;
        let mut n = ahead;
        loop {
            p = self.skip_splices(p);
            let b = *self.text.get(p)?;
            if n == 0 {
                return Some(b);
            }
            n -= 1;
            p += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.peek_at(0)
    }

    /// Moves past one character (and the splices before it).
    fn bump(&mut self) {
        self.pos = self.skip_splices(self.pos);
        if self.pos < self.text.len() {
            let width = utf8_width(self.text[self.pos]);
            self.pos = (self.pos + width).min(self.text.len());
        }
        self.pos = self.skip_splices(self.pos);
    }

    fn skip_splices(&self, mut p: usize) -> usize {
        while self.text.get(p) == Some(&b'\\') {
            match (self.text.get(p + 1), self.text.get(p + 2)) {
                (Some(b'\n'), _) => p += 2,
                (Some(b'\r'), Some(b'\n')) => p += 3,
                _ => break,
            }
        }
        p
    }

    /// Skips white space and comments; returns whether a newline was passed.
    fn skip_space(&mut self) -> bool {
        let mut newline = false;
        loop {
            match self.peek() {
                Some(b'\n') => {
                    newline = true;
                    self.bump();
                }
                Some(b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c') => self.bump(),
                Some(b'/') if self.peek_at(1) == Some(b'/') => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.bump();
                    }
                }
                Some(b'/') if self.peek_at(1) == Some(b'*') => {
                    let start = self.pos;
                    self.bump();
                    self.bump();
                    loop {
                        match self.peek() {
                            None => {
                                let span = Span::new(self.file, start, start + 2);
                                self.diags.error(span, "unterminated /* comment");
                                return newline;
                            }
                            Some(b'*') if self.peek_at(1) == Some(b'/') => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            Some(b'\n') => {
                                // A comment is one space, even over lines: the line's
                                // directive status does not change.
                                self.bump();
                            }
                            Some(_) => self.bump(),
                        }
                    }
                }
                _ => return newline,
            }
        }
    }

    /// Scans one token and returns its kind, or `None` at the end of input.
    fn token_kind(&mut self) -> Option<TokenKind> {
        let c = self.peek()?;
        Some(match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                // `L'x'` and `L"x"` are wide literals, which OpenCL C does not have; they
                // lex as an identifier followed by a literal and are rejected later.
                while matches!(
                    self.peek(),
                    Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
                ) {
                    self.bump();
                }
                TokenKind::Ident
            }
            b'0'..=b'9' => self.number(),
            b'.' if matches!(self.peek_at(1), Some(b'0'..=b'9')) => self.number(),
            b'\'' => self.quoted(b'\'', TokenKind::Char, "character constant"),
            b'"' => self.quoted(b'"', TokenKind::Str, "string literal"),
            _ => {
                for (spelling, punct) in Punct::SPELLINGS {
                    let bytes = spelling.as_bytes();
                    if (0..bytes.len()).all(|i| self.peek_at(i) == Some(bytes[i])) {
                        for _ in 0..bytes.len() {
                            self.bump();
                        }
                        return Some(TokenKind::Punct(*punct));
                    }
                }
                self.bump();
                TokenKind::Other
            }
        })
    }

    /// A preprocessing number: digit or `.digit`, then digits, letters, `_`, `.`, and a
    /// sign right after an exponent letter (`e E p P`).
    fn number(&mut self) -> TokenKind {
        self.bump();
        loop {
            match self.peek() {
                Some(b'e' | b'E' | b'p' | b'P') if matches!(self.peek_at(1), Some(b'+' | b'-')) => {
                    self.bump();
                    self.bump();
                }
                Some(b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'.') => self.bump(),
                _ => return TokenKind::Number,
            }
        }
    }

    fn quoted(&mut self, quote: u8, kind: TokenKind, what: &str) -> TokenKind {
        let start = self.pos;
        self.bump();
        loop {
            match self.peek() {
                Some(c) if c == quote => {
                    self.bump();
                    return kind;
                }
                Some(b'\\') => {
                    self.bump();
                    if self.peek().is_some_and(|c| c != b'\n') {
                        self.bump();
                    }
                }
                None | Some(b'\n') => {
                    let span = Span::new(self.file, start, self.pos);
                    self.diags.error(
                        span,
                        format!("missing terminating {} character", quote as char),
                    );
                    let _ = what;
                    return kind;
                }
                Some(_) => self.bump(),
            }
        }
    }

    /// The text of `start..end` without line splices.
    /// The shared copy of a short spelling: a program repeats its names, punctuators and
    /// small numbers, and one allocation per token was a tenth of a large build's peak.
    fn intern(&mut self, spelling: &str) -> Arc<str> {
        if spelling.len() > INTERNED_LEN {
            return spelling.into();
        }
        if let Some(shared) = self.interned.get(spelling) {
            return Arc::clone(shared);
        }
        let shared: Arc<str> = spelling.into();
        self.interned.insert(Arc::clone(&shared));
        shared
    }
}

/// The spelling of `src[start..end]`, line splices removed.
fn spelling(src: &str, start: usize, end: usize) -> std::borrow::Cow<'_, str> {
    let raw = &src[start..end];
    if !raw.contains('\\') {
        return raw.into();
    }
    raw.replace("\\\r\n", "").replace("\\\n", "").into()
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::source::SourceMap;

    fn lex(text: &str) -> (Vec<Token>, Diagnostics) {
        let mut sources = SourceMap::new();
        let file = sources.add("t.cl", text);
        let mut diags = Diagnostics::new();
        let tokens = tokenize(file, text, &mut diags);
        (tokens, diags)
    }

    fn spellings(text: &str) -> Vec<String> {
        lex(text)
            .0
            .iter()
            .filter(|t| t.kind != TokenKind::Eof)
            .map(|t| t.text.to_string())
            .collect()
    }

    #[test]
    fn repeated_short_spellings_share_one_allocation() {
        let (t, _) = lex("x = x + 1; x");
        assert_eq!(&*t[6].text, "x");
        assert!(Arc::ptr_eq(&t[0].text, &t[2].text));
        assert!(Arc::ptr_eq(&t[0].text, &t[6].text));
        assert!(!Arc::ptr_eq(&t[0].text, &t[1].text));
        let long = "a".repeat(INTERNED_LEN + 1);
        let (t, _) = lex(&format!("{long} {long}"));
        assert_eq!(&*t[1].text, long);
        assert!(!Arc::ptr_eq(&t[0].text, &t[1].text));
    }

    #[test]
    fn maximal_munch_of_punctuators() {
        assert_eq!(
            spellings("a<<=b>>c...d->e"),
            ["a", "<<=", "b", ">>", "c", "...", "d", "->", "e"]
        );
        assert_eq!(spellings("x+++y"), ["x", "++", "+", "y"]);
        assert_eq!(spellings("#define A ## B"), ["#", "define", "A", "##", "B"]);
    }

    #[test]
    fn preprocessing_numbers_include_suffixes_and_exponents() {
        assert_eq!(
            spellings("1.5e-3f 0x1p+2 .5 0xFFu 1..2 12UL"),
            ["1.5e-3f", "0x1p+2", ".5", "0xFFu", "1..2", "12UL"]
        );
        assert_eq!(
            spellings("(float4)(1.0f,2)"),
            ["(", "float4", ")", "(", "1.0f", ",", "2", ")"]
        );
    }

    #[test]
    fn comments_are_space_and_splices_join_lines() {
        let (tokens, _) = lex("a/* x\n y */b // c\nd\\\ne");
        let texts: Vec<_> = tokens.iter().map(|t| t.text.to_string()).collect();
        assert_eq!(texts, ["a", "b", "de", ""]);
        assert!(tokens[1].space_before && !tokens[1].at_line_start);
        assert!(tokens[2].at_line_start);
        assert_eq!(tokens[2].span.end - tokens[2].span.start, 4);
    }

    #[test]
    fn strings_and_chars_with_escapes() {
        assert_eq!(
            spellings(r#"printf("a\"b%d\n", 'c', '\'')"#),
            [
                "printf",
                "(",
                r#""a\"b%d\n""#,
                ",",
                "'c'",
                ",",
                r"'\''",
                ")"
            ]
        );
    }

    #[test]
    fn unterminated_things_are_reported_not_fatal() {
        let (tokens, diags) = lex("\"abc\nint x; /* open");
        assert_eq!(diags.error_count(), 2);
        assert!(tokens.iter().any(|t| t.is_ident("int")));
        assert_eq!(tokens.last().unwrap().kind, TokenKind::Eof);
    }

    #[test]
    fn line_starts_mark_directives() {
        let (tokens, _) = lex("  #if X\nint y;\n");
        assert!(tokens[0].is_punct(Punct::Hash) && tokens[0].at_line_start);
        assert!(!tokens[1].at_line_start);
        assert!(tokens[3].at_line_start);
    }
}
