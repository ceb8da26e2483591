//! Where the nodes of a parsed document sit in its text: the span index both parse paths
//! fill ([`super::parse_loaded`]'s `convert` and [`super::direct`]), the mapping from saphyr's
//! markers to byte offsets and columns, and JSON pointer segments. Below both paths, so neither
//! imports the other's module for them.

use rustc_hash::FxHashMap;
use saphyr_parser::{Marker, Span};

use crate::diag::Location;

/// Where a node and (for mapping values) its key sit in the file.
#[derive(Debug, Clone, Copy)]
pub struct NodeSpans {
    pub key: Option<Location>,
    pub value: Location,
    /// The value is a mapping or sequence (underline the key rather than the whole block).
    pub is_collection: bool,
}

/// JSON pointer → where its node (and, for mapping values, its key) sits in the file. The
/// pointers are kept end to end in one string, in the order the parser finished their nodes,
/// rather than as a map of owned keys: every node of every spec is indexed and few are ever
/// looked up (a finding's place, a tuner's edit), so a `String` and a hash-map insert per node
/// were a few percent of `validate`'s time (issue 41). A lookup scans the entries from the last
/// (a pointer entered twice: the later wins, as a map's insert did); a large document gets a
/// hash index on its first lookup, so many findings on a large file stay linear.
#[derive(Debug, Clone, Default)]
pub struct SpanIndex {
    /// Every pointer, end to end.
    text: String,
    /// Each entry's pointer (a range of `text`) and spans.
    entries: Vec<(usize, usize, NodeSpans)>,
    /// Pointer → its last entry, built on the first lookup of an index of more than
    /// [`SCAN_MAX`] entries (FxHash: the pointers come from the file's own keys, which a
    /// spec's author has no reason to make collide; a spec is at most 1 MiB).
    lookup: std::sync::OnceLock<FxHashMap<String, usize>>,
}

/// Entries scanned without a hash index (a spec has one or two hundred nodes).
const SCAN_MAX: usize = 512;

impl SpanIndex {
    /// Room for `nodes` entries whose pointers take about `bytes`.
    pub(super) fn with_capacity(nodes: usize, bytes: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
            entries: Vec::with_capacity(nodes),
            lookup: std::sync::OnceLock::new(),
        }
    }

    /// Index `pointer` (a later entry of the same pointer replaces an earlier one).
    pub(super) fn insert(&mut self, pointer: &str, spans: NodeSpans) {
        let start = self.text.len();
        self.text.push_str(pointer);
        self.entries.push((start, self.text.len(), spans));
        self.lookup.take();
    }

    fn get(&self, pointer: &str) -> Option<&NodeSpans> {
        if self.entries.len() > SCAN_MAX {
            let lookup = self.lookup.get_or_init(|| {
                let mut map = FxHashMap::default();
                for (i, (a, b, _)) in self.entries.iter().enumerate() {
                    map.insert(self.text[*a..*b].to_string(), i);
                }
                map
            });
            return lookup.get(pointer).map(|i| &self.entries[*i].2);
        }
        self.entries
            .iter()
            .rev()
            .find(|(a, b, _)| b - a == pointer.len() && &self.text[*a..*b] == pointer)
            .map(|(_, _, n)| n)
    }

    /// Every pointer indexed with its spans (the last entry of each), sorted by pointer.
    pub fn entries(&self) -> Vec<(&str, NodeSpans)> {
        let mut last: FxHashMap<&str, NodeSpans> = FxHashMap::default();
        for (a, b, n) in &self.entries {
            last.insert(&self.text[*a..*b], *n);
        }
        let mut v: Vec<(&str, NodeSpans)> = last.into_iter().collect();
        v.sort_by(|x, y| x.0.cmp(y.0));
        v
    }

    /// The best place to underline for `pointer`: a scalar's value, a collection's key; for a
    /// pointer that does not exist (a missing field), its nearest existing parent.
    pub fn locate(&self, pointer: &str) -> Option<Location> {
        let mut p = pointer;
        loop {
            if let Some(n) = self.get(p) {
                return Some(if n.is_collection {
                    n.key.unwrap_or(n.value)
                } else {
                    n.value
                });
            }
            if p.is_empty() {
                return None;
            }
            p = match p.rfind('/') {
                Some(i) => &p[..i],
                None => "",
            };
        }
    }

    /// The spans of exactly `pointer` (no fallback to a parent), for tools that edit the text.
    pub fn spans(&self, pointer: &str) -> Option<NodeSpans> {
        self.get(pointer).copied()
    }

    /// Pointers of the direct children of `pointer` (mapping keys or sequence items).
    pub fn children(&self, pointer: &str) -> Vec<String> {
        let prefix = format!("{pointer}/");
        let mut v: Vec<String> = self
            .entries
            .iter()
            .map(|(a, b, _)| &self.text[*a..*b])
            .filter(|k| k.starts_with(&prefix) && !k[prefix.len()..].contains('/'))
            .map(str::to_string)
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// The key of `pointer` (for findings about a name: unknown fields, tag names), else
    /// [`Self::locate`].
    pub fn locate_key(&self, pointer: &str) -> Option<Location> {
        match self.get(pointer) {
            Some(NodeSpans { key: Some(k), .. }) => Some(*k),
            _ => self.locate(pointer),
        }
    }
}

/// Maps saphyr's character markers to byte offsets and 1-based columns.
pub(super) struct Positions<'a> {
    pub(super) text: &'a str,
    /// Byte offset of every char index, plus the end; empty for ASCII text, where a char index
    /// is its byte offset (most specs: no table to build).
    char_to_byte: Vec<usize>,
    ascii: bool,
}

impl<'a> Positions<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let ascii = text.is_ascii();
        let mut char_to_byte = Vec::new();
        if !ascii {
            char_to_byte = text.char_indices().map(|(b, _)| b).collect();
            char_to_byte.push(text.len());
        }
        Self {
            text,
            char_to_byte,
            ascii,
        }
    }

    fn byte(&self, m: &Marker) -> usize {
        if self.ascii {
            return m.index().min(self.text.len());
        }
        self.char_to_byte
            .get(m.index())
            .copied()
            .unwrap_or(self.text.len())
    }

    /// A location for `span`, clipped to the first line so underlines stay readable.
    pub(super) fn location(&self, span: &Span) -> Location {
        let start = self.byte(&span.start);
        let mut end = self.byte(&span.end).max(start);
        if let Some(nl) = memchr::memchr(b'\n', &self.text.as_bytes()[start..end]) {
            end = start + nl;
        }
        // a quoted scalar ends at its closing quote: the parser's span runs on over the spaces
        // and a trailing comment after it
        if let Some(close) = closing_quote(&self.text[start..end]) {
            end = start + close;
        }
        // trim the trailing whitespace a block scalar's span may include
        while end > start && self.text[..end].ends_with([' ', '\t', '\r']) {
            end -= 1;
        }
        if end == start && start < self.text.len() {
            // zero-width: widen to one character so the caret shows
            end = start + self.text[start..].chars().next().map_or(0, char::len_utf8);
            if self.text[start..end].contains('\n') {
                end = start;
            }
        }
        let line = span.start.line().max(1);
        let column = span.start.col() + 1;
        let width = if self.ascii {
            end - start
        } else {
            self.text[start..end].chars().count()
        };
        Location {
            line,
            column,
            end_line: line,
            end_column: column + width,
            byte_start: start,
            byte_end: end,
        }
    }

    pub(super) fn point(&self, m: &Marker) -> Location {
        self.location(&Span::new(*m, *m))
    }
}

/// One JSON pointer segment for a key (RFC 6901: `~` → `~0`, `/` → `~1`).
pub(crate) fn escape_pointer(seg: &str) -> String {
    seg.replace('~', "~0").replace('/', "~1")
}

/// The key a JSON pointer segment stands for (the inverse of [`escape_pointer`]).
pub(crate) fn unescape_pointer(seg: &str) -> String {
    seg.replace("~1", "/").replace("~0", "~")
}

/// The byte length of the quoted scalar `text` starts with (up to and including its closing
/// quote; `''` and `\"` are escapes, not the end), or `None` when `text` is not one.
pub(super) fn closing_quote(text: &str) -> Option<usize> {
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                chars.next();
            } else {
                return Some(i + c.len_utf8());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(n: usize) -> NodeSpans {
        NodeSpans {
            key: None,
            value: Location {
                line: n,
                column: 1,
                end_line: n,
                end_column: 2,
                byte_start: n,
                byte_end: n + 1,
            },
            is_collection: n.is_multiple_of(2),
        }
    }

    /// The index answers as a map filled in the same order answers (a pointer entered twice:
    /// the later wins), for a spec-sized index scanned and for a large one hashed, also when
    /// entries come after a lookup; `children` lists each child once.
    #[test]
    fn the_index_answers_as_a_map_of_its_entries() {
        for count in [0, 7, SCAN_MAX, SCAN_MAX + 1, 3 * SCAN_MAX] {
            let mut index = SpanIndex::default();
            let mut model: std::collections::HashMap<String, usize> = Default::default();
            for i in 0..count {
                // every fifth pointer repeats an earlier one
                let p = if i % 5 == 4 {
                    format!("/spec/a/{}", i / 2)
                } else {
                    format!("/spec/a/{i}")
                };
                index.insert(&p, spans(i));
                model.insert(p, i);
                if i % 97 == 0 {
                    // a lookup in between: a hash index built then must see what follows
                    let _ = index.spans("/spec/a/0");
                }
            }
            for i in 0..count + 3 {
                let p = format!("/spec/a/{i}");
                assert_eq!(
                    index.spans(&p).map(|s| s.value.line),
                    model.get(&p).copied(),
                    "{count}: {p}"
                );
            }
            let mut children: Vec<String> = model.keys().cloned().collect();
            children.sort();
            assert_eq!(index.children("/spec/a"), children, "{count}");
            assert_eq!(index.entries().len(), model.len());
            assert_eq!(
                index.locate("/spec/a/0/deeper"),
                model.get("/spec/a/0").map(|i| {
                    let s = spans(*i);
                    s.key.unwrap_or(s.value)
                })
            );
        }
    }
}
