//! Diagnostics: every error and warning of a build, printed as
//! `<file>:<line>:<col>: error: <message>`, the source line, and a caret (with `~` under
//! the rest of the range).
//!
//! Stages never stop at the first error: they report into [`Diagnostics`] and go on, so the
//! build log lists every problem at once.

use super::source::{SourceMap, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    fn label(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
    /// Further explanations, each at its own place (e.g. "expanded from macro").
    pub notes: Vec<(Span, String)>,
}

/// The diagnostics of one build, with the options that change them.
#[derive(Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    /// `-w`: warnings are dropped.
    pub suppress_warnings: bool,
    /// `-Werror`: warnings count as errors.
    pub warnings_are_errors: bool,
}

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            notes: Vec::new(),
        });
    }

    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic {
            severity: Severity::Warning,
            span,
            message: message.into(),
            notes: Vec::new(),
        });
    }

    /// Adds a diagnostic, applying `-w` and `-Werror`.
    pub fn push(&mut self, mut diagnostic: Diagnostic) {
        if diagnostic.severity == Severity::Warning {
            if self.suppress_warnings {
                return;
            }
            if self.warnings_are_errors {
                diagnostic.severity = Severity::Error;
            }
        }
        self.list.push(diagnostic);
    }

    /// Attaches a note to the last diagnostic (if any).
    pub fn note(&mut self, span: Span, message: impl Into<String>) {
        if let Some(last) = self.list.last_mut() {
            last.notes.push((span, message.into()));
        }
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn error_count(&self) -> usize {
        self.list
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    /// The build log: every diagnostic rendered, in the order reported.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        for d in &self.list {
            render_one(&mut out, sources, d.severity, d.span, &d.message);
            for (span, note) in &d.notes {
                render_one(&mut out, sources, Severity::Note, *span, note);
            }
        }
        out
    }
}

/// One diagnostic: the location line, the source line, and the caret line.
fn render_one(
    out: &mut String,
    sources: &SourceMap,
    severity: Severity,
    span: Span,
    message: &str,
) {
    let loc = sources.locate(span.file, span.start);
    out.push_str(&format!(
        "{}:{}:{}: {}: {}\n",
        loc.name,
        loc.line,
        loc.column,
        severity.label(),
        message
    ));
    let file = sources.file(span.file);
    let line = file.line_text(span.start);
    out.push_str(line);
    out.push('\n');
    // The caret line copies tabs so that it lines up under the source whatever the tab width.
    let before: String = line
        .chars()
        .take(loc.column as usize - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let available = line.chars().count().saturating_sub(loc.column as usize - 1);
    let width = file
        .text
        .get(span.start as usize..span.end as usize)
        .map_or(1, |s| s.chars().count());
    let tildes = width.clamp(1, available.max(1)) - 1;
    out.push_str(&before);
    out.push('^');
    out.push_str(&"~".repeat(tildes));
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_print_location_line_and_caret() {
        let mut sources = SourceMap::new();
        let f = sources.add("kernel.cl", "int x;\n\tfloat4 v = y + 1;\n");
        let start = "int x;\n\tfloat4 v = ".len();
        let mut diags = Diagnostics::new();
        diags.error(
            Span::new(f, start, start + 1),
            "use of undeclared identifier 'y'",
        );
        assert_eq!(
            diags.render(&sources),
            "kernel.cl:2:13: error: use of undeclared identifier 'y'\n\tfloat4 v = y + 1;\n\t           ^\n"
        );
    }

    #[test]
    fn ranges_get_tildes_and_notes_follow() {
        let mut sources = SourceMap::new();
        let f = sources.add("a.cl", "x = foo(1, 2);\n");
        let mut diags = Diagnostics::new();
        diags.warning(Span::new(f, 4, 13), "unused result");
        diags.note(Span::new(f, 0, 1), "assigned here");
        assert_eq!(
            diags.render(&sources),
            "a.cl:1:5: warning: unused result\nx = foo(1, 2);\n    ^~~~~~~~~\na.cl:1:1: note: assigned here\nx = foo(1, 2);\n^\n"
        );
    }

    #[test]
    fn minus_w_and_werror() {
        let mut sources = SourceMap::new();
        let f = sources.add("a.cl", "x\n");
        let mut quiet = Diagnostics {
            suppress_warnings: true,
            ..Diagnostics::new()
        };
        quiet.warning(Span::new(f, 0, 1), "w");
        assert_eq!(quiet.iter().count(), 0);
        let mut strict = Diagnostics {
            warnings_are_errors: true,
            ..Diagnostics::new()
        };
        strict.warning(Span::new(f, 0, 1), "w");
        assert!(strict.has_errors());
    }
}
