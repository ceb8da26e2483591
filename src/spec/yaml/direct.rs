//! The common case of [`super::parse`] without the document tree: the parser's events go
//! straight into the JSON value and the span index. saphyr's loader builds a `MarkedYaml` tree
//! (a linked hash map per mapping, every key hashed) that `convert` then copies into JSON and
//! drops: a third of `validate`'s time on a thousand specs was that round trip (issue 41).
//!
//! Only what a spec is made of takes this path: one document whose root is a mapping or a
//! sequence, plain or quoted scalars, keys that are text, numbers or booleans, no tags, no
//! anchors or aliases, no key twice. On anything else (and on any error) it gives up
//! ([`Direct::Other`]) and the caller parses again through the loader, whose answer (errors and
//! their places included) is the reference; a unit test compares both on every spec of the
//! repository and on edge cases.

use saphyr::Scalar;
use saphyr_parser::{Event, Marker, ScalarStyle, Span};
use serde_json::{Map, Number, Value};

use super::spans::{NodeSpans, Positions, SpanIndex, escape_pointer};
use crate::diag::Location;

/// What one event made of the document, or why the direct path gives up.
pub(super) enum Direct {
    /// Keep feeding events.
    More,
    /// Not for this path: parse through the loader.
    Other,
}

/// A collection being filled.
enum Open {
    Seq(Vec<Value>),
    /// The mapping, and the key of the value to come (its name and where it is).
    Map(Map<String, Value>, Option<(String, Location)>),
}

struct Frame {
    open: Open,
    start: Marker,
    /// The key this collection is the value of (for its index entry).
    key: Option<Location>,
    /// The length of the pointer before this collection's own segment.
    parent_len: usize,
}

/// Events → JSON value and span index, for the documents [`Direct`] accepts.
pub(super) struct Builder<'p, 't> {
    pos: &'p Positions<'t>,
    stack: Vec<Frame>,
    pointer: String,
    index: SpanIndex,
    root: Option<Value>,
}

impl<'p, 't> Builder<'p, 't> {
    pub(super) fn new(pos: &'p Positions<'t>) -> Self {
        // about a node a line (a few more in flow lists): sized once, not grown; the file's
        // lines counted once
        let nodes = lines(pos.text) * 5 / 4;
        Self {
            pos,
            stack: Vec::new(),
            pointer: String::new(),
            // a pointer is about 24 bytes
            index: SpanIndex::with_capacity(nodes, nodes * 24),
            root: None,
        }
    }

    /// The value and its index, once every event was fed; `None` when the document is not one
    /// this path builds (no root collection).
    pub(super) fn finish(self) -> Option<(Value, SpanIndex)> {
        if !self.stack.is_empty() {
            return None;
        }
        Some((self.root?, self.index))
    }

    pub(super) fn on_event(&mut self, ev: Event<'t>, span: Span) -> Direct {
        match ev {
            Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd
            | Event::Nothing => Direct::More,
            Event::Alias(_) => Direct::Other,
            Event::Scalar(v, style, anchor, tag) => {
                if anchor > 0 || tag.is_some() {
                    return Direct::Other;
                }
                let scalar = if style == ScalarStyle::Plain && plainly_text(&v) {
                    Scalar::String(v)
                } else {
                    let Some(scalar) = Scalar::parse_from_cow_and_metadata(v, style, None) else {
                        return Direct::Other;
                    };
                    scalar
                };
                if let Some(Frame {
                    open: Open::Map(_, key @ None),
                    ..
                }) = self.stack.last_mut()
                {
                    // a key: text, or a number or boolean written as one
                    let name = match scalar {
                        Scalar::String(s) => s.into_owned(),
                        Scalar::Integer(i) => i.to_string(),
                        Scalar::Boolean(b) => b.to_string(),
                        _ => return Direct::Other,
                    };
                    // twice (or `1` and `"1"`): found when the value goes in ([`Self::add`]),
                    // so each key is hashed once
                    *key = Some((name, self.pos.location(&span)));
                    return Direct::More;
                }
                let value = match scalar {
                    Scalar::Null => Value::Null,
                    Scalar::Boolean(b) => Value::Bool(b),
                    Scalar::Integer(i) => Value::Number(i.into()),
                    Scalar::FloatingPoint(f) => match Number::from_f64(f.into_inner()) {
                        Some(n) => Value::Number(n),
                        None => return Direct::Other,
                    },
                    Scalar::String(s) => Value::String(s.into_owned()),
                };
                let Some((key, parent_len)) = self.enter() else {
                    return Direct::Other;
                };
                self.index.insert(
                    &self.pointer,
                    NodeSpans {
                        key,
                        value: self.pos.location(&span),
                        is_collection: false,
                    },
                );
                self.pointer.truncate(parent_len);
                self.add(value)
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                if anchor > 0 || tag.is_some() {
                    return Direct::Other;
                }
                let open = if matches!(ev, Event::SequenceStart(..)) {
                    Open::Seq(Vec::new())
                } else {
                    Open::Map(Map::new(), None)
                };
                let Some((key, parent_len)) = self.enter() else {
                    return Direct::Other;
                };
                self.stack.push(Frame {
                    open,
                    start: span.start,
                    key,
                    parent_len,
                });
                Direct::More
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Direct::Other;
                };
                let value = match frame.open {
                    Open::Seq(items) => Value::Array(items),
                    Open::Map(map, None) => Value::Object(map),
                    // a key without its value: not a mapping the parser emits
                    Open::Map(_, Some(_)) => return Direct::Other,
                };
                // the loader's span of a collection: its start event to its end event's start
                let loc = self.pos.location(&Span::new(frame.start, span.start));
                self.index.insert(
                    &self.pointer,
                    NodeSpans {
                        key: frame.key,
                        value: loc,
                        is_collection: true,
                    },
                );
                self.pointer.truncate(frame.parent_len);
                self.add(value)
            }
        }
    }

    /// A node starts: extend the pointer with its segment. Returns its key's place and the
    /// pointer's length before the segment; `None` when a second document starts or a
    /// collection is a mapping's key.
    fn enter(&mut self) -> Option<(Option<Location>, usize)> {
        let len = self.pointer.len();
        match self.stack.last() {
            None if self.root.is_some() => None,
            None => Some((None, len)),
            Some(Frame {
                open: Open::Seq(items),
                ..
            }) => {
                self.pointer.push('/');
                push_index(&mut self.pointer, items.len());
                Some((None, len))
            }
            Some(Frame {
                open: Open::Map(_, Some((name, key_loc))),
                ..
            }) => {
                self.pointer.push('/');
                if name.contains(['~', '/']) {
                    self.pointer.push_str(&escape_pointer(name));
                } else {
                    self.pointer.push_str(name);
                }
                Some((Some(*key_loc), len))
            }
            // a collection as a key
            Some(Frame {
                open: Open::Map(_, None),
                ..
            }) => None,
        }
    }

    /// A node is complete: into its parent, or the root (a collection only).
    fn add(&mut self, value: Value) -> Direct {
        match self.stack.last_mut() {
            None => {
                if !(value.is_object() || value.is_array()) {
                    return Direct::Other;
                }
                self.root = Some(value);
            }
            Some(Frame {
                open: Open::Seq(items),
                ..
            }) => items.push(value),
            Some(Frame {
                open: Open::Map(map, key),
                ..
            }) => {
                let Some((name, _)) = key.take() else {
                    return Direct::Other;
                };
                // a key twice (or `1` and `"1"`): the loader tells a duplicate from a distinct key
                if map.insert(name, value).is_some() {
                    return Direct::Other;
                }
            }
        }
        Direct::More
    }
}

/// A plain scalar the core schema can only read as text: it starts with an ASCII letter and is
/// not one of the null and boolean words. A number (`i64` or `f64`, as saphyr tries them) starts
/// with a digit, a sign or a dot, or is `inf` / `nan`, which hold no digit and which saphyr
/// therefore never parses. Most keys and values of a spec are such words, and saphyr's
/// resolution tried the integer and float parsers on each (issue 41); a test compares with
/// saphyr's answer.
fn plainly_text(v: &str) -> bool {
    v.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && !matches!(
            v,
            "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
        )
}

/// `n` in decimal at the end of `out`, without the formatting machinery (every item of every
/// sequence of every spec: issue 41).
fn push_index(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|d| char::from(*d)));
}

/// Lines of `text`.
fn lines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// What [`plainly_text`] reads as text, saphyr's core schema reads as text too: words,
        /// the null and boolean words and their near misses, `inf`/`nan` spellings, letters
        /// followed by digits, signs, dots and exponents.
        #[test]
        fn plainly_text_is_text_to_saphyr(
            v in "[a-zA-Z][a-zA-Z0-9_.+-]{0,12}|(?i:null|true|false|inf|infinity|nan|e5|e|x1)[0-9.]{0,2}"
        ) {
            if plainly_text(&v) {
                let s = Scalar::parse_from_cow_and_metadata(
                    std::borrow::Cow::Borrowed(v.as_str()),
                    ScalarStyle::Plain,
                    None,
                );
                prop_assert!(matches!(s, Some(Scalar::String(_))), "{v:?} -> {s:?}");
            }
        }
    }

    /// [`push_index`] writes what `Display` writes.
    #[test]
    fn indexes_are_written_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, usize::MAX / 3, usize::MAX] {
            let mut out = String::from("/a/");
            push_index(&mut out, n);
            assert_eq!(out, format!("/a/{n}"));
        }
    }

    #[test]
    fn the_null_and_boolean_words_are_not_plainly_text() {
        for w in [
            "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
        ] {
            assert!(!plainly_text(w), "{w}");
        }
        for w in [
            "nulls",
            "yes",
            "no",
            "on",
            "off",
            "inf",
            "nan",
            "Standard_NC4as_T4_v3",
        ] {
            assert!(plainly_text(w), "{w}");
        }
    }
}
