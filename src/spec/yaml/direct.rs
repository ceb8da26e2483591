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

use std::fmt::Write as _;

use saphyr::Scalar;
use saphyr_parser::{Event, Marker, Span};
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
        Self {
            pos,
            stack: Vec::new(),
            pointer: String::new(),
            // about a node a line (a few more in flow lists): sized once, not grown by rehashing
            index: SpanIndex::with_capacity(
                lines(pos.text) + lines(pos.text) / 4,
                // a pointer is about 24 bytes
                (lines(pos.text) + lines(pos.text) / 4) * 24,
            ),
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
                let Some(scalar) = Scalar::parse_from_cow_and_metadata(v, style, None) else {
                    return Direct::Other;
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
                let _ = write!(self.pointer, "/{}", items.len());
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

/// Lines of `text`.
fn lines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1
}
