//! Source files, positions and the `#line` remapping of positions.
//!
//! A [`Span`] is a byte range in one file. Line and column are computed only when a
//! diagnostic is printed, from each file's table of line starts; `#line` directives add
//! entries that renumber the lines (and rename the file) from a given offset on.

use std::sync::Arc;

/// Index of a file in its [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both (they must be in the same file; otherwise `self`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A `#line` directive: from `offset` on, the next line is numbered `line` in `name`.
#[derive(Clone, Debug)]
struct LineRemap {
    offset: u32,
    /// The physical line (0-based) that gets the number `line`.
    physical_line: u32,
    line: u32,
    name: Option<Arc<str>>,
}

#[derive(Debug)]
pub struct SourceFile {
    pub name: Arc<str>,
    pub text: Arc<str>,
    line_starts: Vec<u32>,
    remaps: Vec<LineRemap>,
}

impl SourceFile {
    fn new(name: &str, text: &str) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        SourceFile {
            name: name.into(),
            text: text.into(),
            line_starts,
            remaps: Vec::new(),
        }
    }

    /// The 0-based physical line holding `offset`.
    fn physical_line(&self, offset: u32) -> usize {
        self.line_starts.partition_point(|&s| s <= offset) - 1
    }

    /// The text of the physical line holding `offset`, without its newline.
    pub fn line_text(&self, offset: u32) -> &str {
        let line = self.physical_line(offset);
        let start = self.line_starts[line] as usize;
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&e| e as usize - 1);
        self.text[start..end].trim_end_matches('\r')
    }
}

/// Where a position is, as a person reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file name (after `#line` renaming).
    pub name: Arc<str>,
    /// 1-based line (after `#line` renumbering).
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// All the files of one compilation.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: &str, text: &str) -> FileId {
        self.files.push(SourceFile::new(name, text));
        FileId(self.files.len() as u32 - 1)
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Records `#line line "name"`: the line after the directive (which starts at
    /// `next_line_offset`) gets number `line`.
    pub fn remap_lines(
        &mut self,
        file: FileId,
        next_line_offset: usize,
        line: u32,
        name: Option<&str>,
    ) {
        let f = &mut self.files[file.0 as usize];
        let physical_line = f.physical_line(next_line_offset as u32) as u32;
        f.remaps.push(LineRemap {
            offset: next_line_offset as u32,
            physical_line,
            line,
            name: name.map(Into::into),
        });
    }

    /// The location of byte `offset` of `file`, `#line` directives applied.
    pub fn locate(&self, file: FileId, offset: u32) -> Location {
        let f = self.file(file);
        let physical = f.physical_line(offset);
        let line_start = f.line_starts[physical] as usize;
        let end = (offset as usize).min(f.text.len());
        let column = f
            .text
            .get(line_start..end)
            .map_or(1, |s| s.chars().count() as u32 + 1);
        // The last remap at or before the offset decides the numbering.
        let remap = f.remaps.iter().rev().find(|r| r.offset <= offset);
        let (name, line) = match remap {
            Some(r) => {
                let name = f
                    .remaps
                    .iter()
                    .rev()
                    .filter(|x| x.offset <= offset)
                    .find_map(|x| x.name.clone());
                (
                    name.unwrap_or_else(|| f.name.clone()),
                    r.line + (physical as u32 - r.physical_line),
                )
            }
            None => (f.name.clone(), physical as u32 + 1),
        };
        Location { name, line, column }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based() {
        let mut map = SourceMap::new();
        let f = map.add("k.cl", "ab\ncdé f\n");
        assert_eq!(
            map.locate(f, 0),
            Location {
                name: "k.cl".into(),
                line: 1,
                column: 1
            }
        );
        let offset = "ab\ncdé ".len() as u32;
        assert_eq!(
            map.locate(f, offset),
            Location {
                name: "k.cl".into(),
                line: 2,
                column: 5
            }
        );
        assert_eq!(map.file(f).line_text(offset), "cdé f");
    }

    #[test]
    fn line_directives_renumber_and_rename() {
        let mut map = SourceMap::new();
        let text = "a\n#line 100 \"x.h\"\nb\nc\n";
        let f = map.add("k.cl", text);
        let b = text.find('b').unwrap();
        map.remap_lines(f, b, 100, Some("x.h"));
        assert_eq!(map.locate(f, b as u32).line, 100);
        assert_eq!(&*map.locate(f, b as u32 + 2).name, "x.h");
        assert_eq!(map.locate(f, b as u32 + 2).line, 101);
        assert_eq!(map.locate(f, 0).line, 1);
    }
}
