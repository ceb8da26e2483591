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

/// JSON pointer → where its node (and, for mapping values, its key) sits in the file. FxHash:
/// every node of every spec is indexed, and the pointers come from the file's own keys, which a
/// spec's author has no reason to make collide (a spec is at most 1 MiB, so even crafted keys
/// cost little).
#[derive(Debug, Clone, Default)]
pub struct SpanIndex {
    pub(super) nodes: FxHashMap<String, NodeSpans>,
}

impl SpanIndex {
    /// The best place to underline for `pointer`: a scalar's value, a collection's key; for a
    /// pointer that does not exist (a missing field), its nearest existing parent.
    pub fn locate(&self, pointer: &str) -> Option<Location> {
        let mut p = pointer;
        loop {
            if let Some(n) = self.nodes.get(p) {
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
        self.nodes.get(pointer).copied()
    }

    /// Pointers of the direct children of `pointer` (mapping keys or sequence items).
    pub fn children(&self, pointer: &str) -> Vec<String> {
        let prefix = format!("{pointer}/");
        let mut v: Vec<String> = self
            .nodes
            .keys()
            .filter(|k| k.starts_with(&prefix) && !k[prefix.len()..].contains('/'))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// The key of `pointer` (for findings about a name: unknown fields, tag names), else
    /// [`Self::locate`].
    pub fn locate_key(&self, pointer: &str) -> Option<Location> {
        match self.nodes.get(pointer) {
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
        if let Some(nl) = self.text[start..end].find('\n') {
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
