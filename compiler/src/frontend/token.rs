//! Preprocessing tokens: what the lexer produces and the preprocessor and parser consume.

use std::sync::Arc;

use super::source::Span;

/// The punctuators of C99 (and so of OpenCL C), `#` and `##` included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    LBracket,
    RBracket,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Dot,
    Arrow,
    PlusPlus,
    MinusMinus,
    Amp,
    Star,
    Plus,
    Minus,
    Tilde,
    Bang,
    Slash,
    Percent,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Caret,
    Pipe,
    AmpAmp,
    PipePipe,
    Question,
    Colon,
    Semi,
    Ellipsis,
    Assign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    PlusAssign,
    MinusAssign,
    ShlAssign,
    ShrAssign,
    AmpAssign,
    CaretAssign,
    PipeAssign,
    Comma,
    Hash,
    HashHash,
}

impl Punct {
    /// Every punctuator with its spelling, longest spellings first (the lexer's maximal
    /// munch tries them in this order).
    pub const SPELLINGS: &'static [(&'static str, Punct)] = &[
        ("<<=", Punct::ShlAssign),
        (">>=", Punct::ShrAssign),
        ("...", Punct::Ellipsis),
        ("->", Punct::Arrow),
        ("++", Punct::PlusPlus),
        ("--", Punct::MinusMinus),
        ("<<", Punct::Shl),
        (">>", Punct::Shr),
        ("<=", Punct::Le),
        (">=", Punct::Ge),
        ("==", Punct::EqEq),
        ("!=", Punct::Ne),
        ("&&", Punct::AmpAmp),
        ("||", Punct::PipePipe),
        ("*=", Punct::StarAssign),
        ("/=", Punct::SlashAssign),
        ("%=", Punct::PercentAssign),
        ("+=", Punct::PlusAssign),
        ("-=", Punct::MinusAssign),
        ("&=", Punct::AmpAssign),
        ("^=", Punct::CaretAssign),
        ("|=", Punct::PipeAssign),
        ("##", Punct::HashHash),
        ("[", Punct::LBracket),
        ("]", Punct::RBracket),
        ("(", Punct::LParen),
        (")", Punct::RParen),
        ("{", Punct::LBrace),
        ("}", Punct::RBrace),
        (".", Punct::Dot),
        ("&", Punct::Amp),
        ("*", Punct::Star),
        ("+", Punct::Plus),
        ("-", Punct::Minus),
        ("~", Punct::Tilde),
        ("!", Punct::Bang),
        ("/", Punct::Slash),
        ("%", Punct::Percent),
        ("<", Punct::Lt),
        (">", Punct::Gt),
        ("^", Punct::Caret),
        ("|", Punct::Pipe),
        ("?", Punct::Question),
        (":", Punct::Colon),
        (";", Punct::Semi),
        ("=", Punct::Assign),
        (",", Punct::Comma),
        ("#", Punct::Hash),
    ];

    pub fn spelling(self) -> &'static str {
        Self::SPELLINGS
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("?", |(s, _)| s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// An identifier or keyword (keywords are told apart by the parser: the preprocessor
    /// treats them as identifiers).
    Ident,
    /// A preprocessing number (`12`, `0x1fu`, `1.5e-3f`, `0x1p-2`, even `1..2`): converted
    /// to a literal, or rejected, by the parser.
    Number,
    /// A character constant, quotes included.
    Char,
    /// A string literal, quotes included.
    Str,
    Punct(Punct),
    /// A character that starts no token (reported by whoever consumes it).
    Other,
    /// A `#pragma` line (or `_Pragma` operator) from the preprocessor; the text is what
    /// follows `pragma` (`OPENCL EXTENSION cl_khr_fp64 : enable`, `unroll 4`).
    Pragma,
    /// End of input.
    Eof,
}

/// One preprocessing token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    /// The token's spelling (line splices removed).
    pub text: Arc<str>,
    /// Where its characters are.
    pub span: Span,
    /// Where it appears in the preprocessed program: the macro invocation for a token that
    /// came out of an expansion, else the same as `span`. Diagnostics point here.
    pub site: Span,
    /// First token of a line (directives start with such a `#`).
    pub at_line_start: bool,
    /// Preceded by white space (stringizing and some diagnostics need it).
    pub space_before: bool,
}

impl Token {
    pub fn is_punct(&self, p: Punct) -> bool {
        self.kind == TokenKind::Punct(p)
    }

    pub fn is_ident(&self, name: &str) -> bool {
        self.kind == TokenKind::Ident && &*self.text == name
    }
}
