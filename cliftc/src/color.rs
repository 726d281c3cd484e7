//! Colour for a build log on a terminal, as clang colours its diagnostics: the severity
//! label in bold colour, the caret line in green.

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";

/// The log with ANSI colours added (`on`), or as it is.
pub fn paint(log: &str, on: bool) -> String {
    if !on {
        return log.to_string();
    }
    let mut out = String::with_capacity(log.len() + 64);
    for line in log.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        out.push_str(&paint_line(body));
        out.push_str(newline);
    }
    out
}

fn paint_line(line: &str) -> String {
    for (label, color) in [
        ("error", "\x1b[31m"),
        ("warning", "\x1b[35m"),
        ("note", "\x1b[36m"),
    ] {
        let marker = format!(": {label}: ");
        if let Some(at) = line.find(&marker) {
            let (location, rest) = line.split_at(at);
            let message = &rest[marker.len()..];
            return format!(
                "{BOLD}{location}: {RESET}{BOLD}{color}{label}:{RESET} {BOLD}{message}{RESET}"
            );
        }
    }
    let is_caret = line.contains('^') && line.chars().all(|c| matches!(c, ' ' | '\t' | '^' | '~'));
    if is_caret {
        return format!("\x1b[32m{BOLD}{line}{RESET}");
    }
    line.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_carets_are_coloured_and_nothing_else() {
        let log = "k.cl:2:5: error: unknown name 'y'\n  y = 1;\n  ^\n";
        assert_eq!(paint(log, false), log);
        assert_eq!(
            paint(log, true),
            "\x1b[1mk.cl:2:5: \x1b[0m\x1b[1m\x1b[31merror:\x1b[0m \x1b[1munknown name 'y'\x1b[0m\n  \
             y = 1;\n\x1b[32m\x1b[1m  ^\x1b[0m\n"
        );
    }
}
