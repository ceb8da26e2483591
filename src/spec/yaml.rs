//! YAML text → `serde_json::Value` plus an index from JSON pointers to source positions, so
//! that every later error (schema, rules) can point at the YAML line.
//!
//! One parser (saphyr, YAML 1.2 core schema: `yes` stays a string) with duplicate keys
//! refused and alias expansion bounded.

use std::collections::HashMap;
use std::fmt::Write as _;

use saphyr::{MarkedYaml, Scalar, YamlData, YamlLoader};
use saphyr_parser::{Event, Parser, ScanError, Span, SpannedEventReceiver};
use serde_json::{Map, Number, Value};

use crate::diag::{Diagnostic, Location};

mod direct;
mod spans;

use spans::Positions;
pub use spans::{NodeSpans, SpanIndex};
pub(crate) use spans::{escape_pointer, unescape_pointer};

/// Alias expansion budget in nodes: far above any real spec, far below a billion laughs.
pub const ALIAS_NODE_LIMIT: usize = 10_000;

/// Expansion budget in bytes: what the document amounts to once every alias is replaced by its
/// anchor's content (scalar bytes plus [`NODE_BYTES`] per node). Specs are at most 1 MiB of text;
/// a handful of aliases of a large string must not turn that into gigabytes.
pub const MAX_EXPANDED_BYTES: u64 = 4 * 1024 * 1024;

/// What one node (scalar, mapping, sequence) counts for beyond its text.
const NODE_BYTES: u64 = 16;

/// Nesting budget (mappings and sequences): a spec needs about eight levels.
pub const MAX_DEPTH: usize = 64;

pub struct ParsedYaml {
    pub value: Value,
    pub index: SpanIndex,
}

/// Counts the size of the document as the loader will build it, before the loader expands an
/// alias: each anchor's expanded size is known when its node ends, and an alias adds it again.
#[derive(Default)]
struct Expansion {
    anchors: HashMap<usize, u64>,
    /// Open collections: (anchor id, size so far).
    open: Vec<(usize, u64)>,
    total: u64,
}

impl Expansion {
    fn add(&mut self, n: u64) {
        self.total = self.total.saturating_add(n);
        if let Some(top) = self.open.last_mut() {
            top.1 = top.1.saturating_add(n);
        }
    }

    /// Account for `ev`; `false` once the document is over budget.
    fn on(&mut self, ev: &Event<'_>) -> bool {
        match ev {
            Event::Scalar(v, _, anchor, _) => {
                let n = v.len() as u64 + NODE_BYTES;
                if *anchor > 0 {
                    self.anchors.insert(*anchor, n);
                }
                self.add(n);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                self.total = self.total.saturating_add(NODE_BYTES);
                self.open.push((*anchor, NODE_BYTES));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, n)) = self.open.pop() {
                    if anchor > 0 {
                        self.anchors.insert(anchor, n);
                    }
                    if let Some(top) = self.open.last_mut() {
                        top.1 = top.1.saturating_add(n);
                    }
                }
            }
            Event::Alias(id) => {
                let n = self.anchors.get(id).copied().unwrap_or(NODE_BYTES);
                self.add(n);
            }
            _ => {}
        }
        self.total <= MAX_EXPANDED_BYTES
    }
}

/// Parse `text` (the whole file) into one JSON value. Errors are diagnostics without `file`.
pub fn parse(text: &str) -> Result<ParsedYaml, Diagnostic> {
    let pos = Positions::new(text);
    // a spec's usual shape straight from the events; anything else through the loader
    match parse_direct(text, &pos)? {
        Some(parsed) => Ok(parsed),
        None => parse_loaded(text, &pos),
    }
}

/// [`parse`] by [`direct::Builder`]: `None` when the document is not one it builds.
fn parse_direct(text: &str, pos: &Positions<'_>) -> Result<Option<ParsedYaml>, Diagnostic> {
    let mut builder = direct::Builder::new(pos);
    let mut other = false;
    let scan_error = feed(text, pos, |ev, span| {
        other = matches!(builder.on_event(ev, span), direct::Direct::Other);
        !other
    })?;
    if other || scan_error.is_some() {
        return Ok(None);
    }
    Ok(builder
        .finish()
        .map(|(value, index)| ParsedYaml { value, index }))
}

/// Every event of `text` to `each` while it returns `true`, with the nesting depth and the
/// alias expansion counted before each (an error once over budget). Returns the scanner's error.
fn feed<'t>(
    text: &'t str,
    pos: &Positions<'t>,
    mut each: impl FnMut(Event<'t>, Span) -> bool,
) -> Result<Option<ScanError>, Diagnostic> {
    // Event by event rather than through `Parser::load`, which recurses once per nesting level:
    // a few thousand `- ` would overflow the stack. Depth is counted here instead.
    let mut depth = 0usize;
    let mut expansion = Expansion::default();
    for event in Parser::new_from_str(text) {
        match event {
            Err(e) => return Ok(Some(e)),
            Ok((ev, span)) => {
                match ev {
                    Event::SequenceStart(..) | Event::MappingStart(..) => {
                        depth += 1;
                        if depth > MAX_DEPTH {
                            return Err(too_deep(pos.point(&span.start)));
                        }
                    }
                    Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if !expansion.on(&ev) {
                    let mut d = Diagnostic::new(
                        "yaml-alias-limit",
                        format!(
                            "YAML aliases expand the document to more than {} MiB",
                            MAX_EXPANDED_BYTES / (1024 * 1024)
                        ),
                    )
                    .label("the expansion passes the limit here")
                    .help(
                        "write the values out instead of repeating large anchors through aliases",
                    );
                    d.location = Some(pos.point(&span.start));
                    return Err(d);
                }
                if !each(ev, span) {
                    break;
                }
            }
        }
    }
    Ok(None)
}

/// [`parse`] through saphyr's loader (its document tree, then [`convert`]): every document
/// the direct path does not take, and the reference for what it does.
fn parse_loaded(text: &str, pos: &Positions<'_>) -> Result<ParsedYaml, Diagnostic> {
    let mut loader: YamlLoader<'_, MarkedYaml<'_>> = YamlLoader::default();
    loader.alias_limit(ALIAS_NODE_LIMIT);
    let scan_error = feed(text, pos, |ev, span| {
        loader.on_event(ev, span);
        true
    })?;
    let scan_error = scan_error.or_else(|| loader.error().cloned());
    if let Some(e) = scan_error {
        let info = e.info().to_string();
        if info.contains("recursion limit exceeded") {
            // the scanner's own flow-level limit (255), met before the depth count
            return Err(too_deep(pos.point(e.marker())));
        }
        let (rule, message, help) = if info.contains("duplicated key") {
            (
                "yaml-duplicate-key",
                "duplicate key in a mapping".to_string(),
                "remove one of the two entries",
            )
        } else if info.contains("alias expansion") {
            (
                "yaml-alias-limit",
                format!("YAML aliases expand to more than {ALIAS_NODE_LIMIT} nodes"),
                "write the values out instead of nesting anchors and aliases",
            )
        } else {
            (
                "yaml-syntax",
                format!("invalid YAML: {info}"),
                "check indentation (spaces, not tabs), quotes and brackets near this position",
            )
        };
        let mut d = Diagnostic::new(rule, message)
            .label(short_label(&info))
            .help(help);
        d.location = Some(pos.point(e.marker()));
        return Err(d);
    }
    let docs = loader.into_documents();
    let mut docs = docs
        .into_iter()
        .filter(|d| !matches!(d.data, YamlData::BadValue));
    let Some(doc) = docs.next() else {
        return Err(Diagnostic::new("empty-document", "the file holds no YAML document")
            .help("a spec starts with `apiVersion: gpuform/v1` and `kind: GpuWorkload`; see examples/"));
    };
    if let Some(second) = docs.next() {
        let mut d = Diagnostic::new(
            "multiple-documents",
            "the file holds more than one YAML document",
        )
        .label("a second document starts here")
        .help("put one workload in one file; split the documents at `---`");
        d.location = Some(pos.location(&second.span));
        return Err(d);
    }
    if matches!(doc.data, YamlData::Value(Scalar::Null)) {
        return Err(Diagnostic::new(
            "empty-document",
            "the file holds no spec (the document is empty)",
        )
        .help(
            "a spec starts with `apiVersion: gpuform/v1` and `kind: GpuWorkload`; see examples/",
        ));
    }
    let mut index = SpanIndex::default();
    let value = convert(&doc, &mut String::new(), None, pos, &mut index)?;
    Ok(ParsedYaml { value, index })
}

fn too_deep(at: Location) -> Diagnostic {
    let mut d = Diagnostic::new(
        "yaml-unsupported",
        format!("the document nests deeper than {MAX_DEPTH} levels"),
    )
    .label("too deep")
    .help("a spec is a few levels deep; check the indentation and the brackets");
    d.location = Some(at);
    d
}

fn short_label(info: &str) -> String {
    info.split(" at ").next().unwrap_or(info).to_string()
}

/// `node` as a JSON value, its spans (and its children's) indexed under `pointer`, which each
/// level extends for its children and restores (one buffer for the whole tree).
fn convert(
    node: &MarkedYaml<'_>,
    pointer: &mut String,
    key: Option<Location>,
    pos: &Positions<'_>,
    index: &mut SpanIndex,
) -> Result<Value, Diagnostic> {
    let loc = pos.location(&node.span);
    let unsupported = |msg: String, help: &str| {
        let mut d = Diagnostic::new("yaml-unsupported", msg).help(help.to_string());
        d.location = Some(loc);
        d.pointer = Some(pointer.to_string());
        d
    };
    let is_collection = matches!(node.data, YamlData::Mapping(_) | YamlData::Sequence(_));
    index.insert(
        pointer,
        NodeSpans {
            key,
            value: loc,
            is_collection,
        },
    );
    Ok(match &node.data {
        YamlData::Value(s) => match s {
            Scalar::Null => Value::Null,
            Scalar::Boolean(b) => Value::Bool(*b),
            Scalar::Integer(i) => Value::Number((*i).into()),
            Scalar::FloatingPoint(f) => match Number::from_f64(f.into_inner()) {
                Some(n) => Value::Number(n),
                None => {
                    return Err(unsupported(
                        format!("`{}` is not a finite number", f.into_inner()),
                        "use a finite number, or quote the value if it is text",
                    ));
                }
            },
            Scalar::String(s) => Value::String(s.to_string()),
        },
        YamlData::Representation(s, ..) => Value::String(s.to_string()),
        YamlData::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            let len = pointer.len();
            for (i, item) in items.iter().enumerate() {
                let _ = write!(pointer, "/{i}");
                out.push(convert(item, pointer, None, pos, index)?);
                pointer.truncate(len);
            }
            Value::Array(out)
        }
        YamlData::Mapping(map) => {
            let mut out = Map::new();
            for (k, v) in map.iter() {
                let key_loc = pos.location(&k.span);
                let name = match &k.data {
                    YamlData::Value(Scalar::String(s)) => s.to_string(),
                    YamlData::Representation(s, ..) => s.to_string(),
                    YamlData::Value(Scalar::Integer(i)) => i.to_string(),
                    YamlData::Value(Scalar::Boolean(b)) => b.to_string(),
                    _ => {
                        let mut d =
                            Diagnostic::new("yaml-unsupported", "mapping keys must be plain text")
                                .help("write the key as a simple word, e.g. `name:`");
                        d.location = Some(key_loc);
                        return Err(d);
                    }
                };
                let len = pointer.len();
                pointer.push('/');
                if name.contains(['~', '/']) {
                    pointer.push_str(&escape_pointer(&name));
                } else {
                    pointer.push_str(&name);
                }
                let value = convert(v, pointer, Some(key_loc), pos, index)?;
                pointer.truncate(len);
                out.insert(name, value);
            }
            Value::Object(out)
        }
        YamlData::Tagged(tag, _) => {
            return Err(unsupported(
                format!(
                    "YAML tag `{}{}` is not supported in a spec",
                    tag.handle, tag.suffix
                ),
                "remove the tag; values are typed by the schema",
            ));
        }
        YamlData::Alias(_) | YamlData::BadValue => {
            return Err(unsupported(
                "this value could not be read".into(),
                "check anchors and aliases (`&a`, `*a`) here",
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::spans::closing_quote;
    use super::*;

    /// What a parse gave, comparable: the value, every index entry (sorted), or the error.
    fn shape(r: &Result<ParsedYaml, Diagnostic>) -> String {
        match r {
            Ok(p) => {
                let nodes = p.index.entries();
                format!("{}\n{nodes:?}", serde_json::to_string(&p.value).unwrap())
            }
            Err(d) => format!("error {d:?}"),
        }
    }

    fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                yaml_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                out.push(p);
            }
        }
    }

    /// The direct path (events straight into JSON, issue 41) gives what the loader gives, value,
    /// spans and errors alike, on every YAML file of the repository and on what it must leave
    /// to the loader; and it takes every example (else it saves nothing).
    #[test]
    fn the_direct_path_gives_what_the_loader_gives() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        yaml_files(&root.join("examples"), &mut files);
        yaml_files(&root.join("tests/fixtures"), &mut files);
        assert!(files.len() > 20, "{}", files.len());
        let mut texts: Vec<(String, String)> = files
            .iter()
            .filter_map(|f| Some((f.display().to_string(), std::fs::read_to_string(f).ok()?)))
            .collect();
        let edge = [
            "a: 1\n1: 2\n",
            "1: a\n\"1\": b\n",
            "1: a\n0x1: b\n",
            "true: a\n\"true\": b\n",
            "a: 1\na: 2\n",
            "~: 1\n",
            "1.5: x\n",
            ": x\n",
            "? [a]\n: 1\n",
            "? {a: 1}\n: 1\n",
            "a: !!str 1\n",
            "a: !!int x\n",
            "!!map {a: 1}\n",
            "a: &x 1\nb: *x\n",
            "a: &x [1, 2]\nb: *x\n",
            "a: *x\n",
            "a: .nan\n",
            "a: .inf\n",
            "a: -.inf\n",
            "a: 1e400\n",
            "scalar\n",
            "~\n",
            "",
            "# c\n",
            "a: 1\n---\nb: 2\n",
            "a: 1\n---\n",
            "---\n---\na: 1\n",
            "- a\n- b\n",
            "[a, {b: c}, [d]]\n",
            "a: [1, 2\n",
            "a:\n  b: 1\n c: 2\n",
            "a: \"x\"   # c\nb: 'it''s'\nc: |\n  l1\n  l2\nd: >-\n  f\n",
            "\"a/b\": 1\n\"c~d\": {\"e/f\": [1]}\n",
            "name: é\nx: \"ü\"\nz: [ä, {ö: 1}]\n",
            "a:\nb: ~\nc: null\nd: yes\ne: 0o17\nf: +12\ng: 0x-1\n",
            "{a: 1, a: 2}\n",
            "a: {b: 1, b: 2}\n",
            "a:\n  - b: 1\n    b: 2\n",
        ];
        texts.extend(edge.iter().map(|t| (format!("{t:?}"), t.to_string())));
        for (name, text) in &texts {
            let pos = Positions::new(text);
            let loaded = parse_loaded(text, &pos);
            assert_eq!(shape(&parse(text)), shape(&loaded), "{name}");
        }
        for f in files
            .iter()
            .filter(|f| f.starts_with(root.join("examples")))
        {
            let text = std::fs::read_to_string(f).unwrap();
            let pos = Positions::new(&text);
            assert!(
                matches!(parse_direct(&text, &pos), Ok(Some(_))),
                "{}",
                f.display()
            );
        }
    }

    #[test]
    fn pointers_map_to_lines_and_columns() {
        let text = "a: 1\nspec:\n  capacity:\n    max: \"ten\"\n  zones: [\"1\", \"2\"]\n";
        let p = parse(text).unwrap();
        let loc = p.index.locate("/spec/capacity/max").unwrap();
        assert_eq!((loc.line, loc.column), (4, 10));
        assert_eq!(&text[loc.byte_start..loc.byte_end], "\"ten\"");
        let loc = p.index.locate("/spec/zones/1").unwrap();
        assert_eq!((loc.line, loc.column), (5, 16));
        // a collection points at its key
        let loc = p.index.locate("/spec/capacity").unwrap();
        assert_eq!(&text[loc.byte_start..loc.byte_end], "capacity");
        // a missing field points at its parent
        let loc = p.index.locate("/spec/capacity/min").unwrap();
        assert_eq!(&text[loc.byte_start..loc.byte_end], "capacity");
        assert_eq!(p.value["spec"]["capacity"]["max"], "ten");
    }

    #[test]
    fn a_quoted_value_is_underlined_up_to_its_closing_quote() {
        // issue 37 item 10: the underline ran on into the trailing comment
        let text = "region: \"westeurop\"   # the pool region\nname: 'it''s'  # a comment\nx: \"a\\\"b\" # c\n";
        let p = parse(text).unwrap();
        let loc = p.index.locate("/region").unwrap();
        assert_eq!(&text[loc.byte_start..loc.byte_end], "\"westeurop\"");
        assert_eq!(loc.end_column - loc.column, 11);
        let loc = p.index.locate("/name").unwrap();
        assert_eq!(&text[loc.byte_start..loc.byte_end], "'it''s'");
        let loc = p.index.locate("/x").unwrap();
        assert_eq!(&text[loc.byte_start..loc.byte_end], "\"a\\\"b\"");
        assert_eq!(closing_quote("plain # c"), None);
    }

    #[test]
    fn columns_count_characters_and_bytes_stay_on_boundaries() {
        let text = "name: é\nx: \"ü\"\n";
        let p = parse(text).unwrap();
        let loc = p.index.locate("/x").unwrap();
        assert_eq!((loc.line, loc.column), (2, 4));
        assert_eq!(&text[loc.byte_start..loc.byte_end], "\"ü\"");
    }

    #[test]
    fn pointer_segments_round_trip() {
        for key in ["a/b", "~1", "x~/y", "plain"] {
            assert_eq!(unescape_pointer(&escape_pointer(key)), key);
        }
        assert_eq!(escape_pointer("a/b~"), "a~1b~0");
        let p = parse("tags: {\"a/b\": 1}\n").unwrap();
        assert!(p.index.locate("/tags/a~1b").is_some());
    }

    #[test]
    fn yaml_12_core_schema() {
        let p = parse("a: yes\nb: 12.4\nc: \"12.4\"\nd: ~\ne: 0x10\n").unwrap();
        assert_eq!(p.value["a"], "yes");
        assert_eq!(p.value["b"], 12.4);
        assert_eq!(p.value["c"], "12.4");
        assert!(p.value["d"].is_null());
        assert_eq!(p.value["e"], 16);
    }

    #[test]
    fn bad_input_becomes_diagnostics() {
        assert_eq!(parse("").err().unwrap().rule, "empty-document");
        assert_eq!(
            parse("# only a comment\n").err().unwrap().rule,
            "empty-document"
        );
        assert_eq!(
            parse("a: 1\n---\nb: 2\n").err().unwrap().rule,
            "multiple-documents"
        );
        assert_eq!(
            parse("a: 1\na: 2\n").err().unwrap().rule,
            "yaml-duplicate-key"
        );
        assert_eq!(parse("a: [1, 2\n").err().unwrap().rule, "yaml-syntax");
        assert_eq!(
            parse("a: !custom 1\n").err().unwrap().rule,
            "yaml-unsupported"
        );
        assert_eq!(
            parse("? [a]\n: 1\n").err().unwrap().rule,
            "yaml-unsupported"
        );
        assert_eq!(parse("a: .nan\n").err().unwrap().rule, "yaml-unsupported");
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
        assert_eq!(parse(bomb).err().unwrap().rule, "yaml-alias-limit");
    }

    #[test]
    fn alias_expansion_is_bounded_in_bytes() {
        // one 100 KB string aliased 9,000 times: 136 KB of text, 900 MB expanded
        let mut text = format!("a: &big \"{}\"\nb:\n", "x".repeat(100_000));
        for _ in 0..9_000 {
            text.push_str("  - *big\n");
        }
        let start = std::time::Instant::now();
        let d = parse(&text).err().unwrap();
        assert_eq!(d.rule, "yaml-alias-limit");
        assert!(d.message.contains("4 MiB"), "{}", d.message);
        let loc = d.location.unwrap();
        assert_eq!(loc.column, 5, "at the alias that passes the limit");
        assert!(loc.line > 3 && loc.line < 100, "{}", loc.line);
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
        // nested anchors count what they expand to
        let nested = format!(
            "a: &s \"{}\"\nb: &l [*s, *s, *s, *s]\nc: [*l, *l, *l, *l, *l, *l, *l, *l, *l, *l, *l, *l]\n",
            "y".repeat(100_000)
        );
        assert_eq!(parse(&nested).err().unwrap().rule, "yaml-alias-limit");
        // modest reuse is fine
        let ok = "a: &t {x: 1, y: 2}\nb: *t\nc: [*t, *t]\n";
        assert_eq!(parse(ok).unwrap().value["c"][1]["y"], 2);
    }

    #[test]
    fn deep_nesting_is_refused_before_it_overflows_the_stack() {
        // block nesting: thousands of levels in a few kilobytes
        let block = format!("{}x\n", "- ".repeat(10_000));
        let d = parse(&block).err().unwrap();
        assert_eq!(d.rule, "yaml-unsupported");
        assert!(d.message.contains("deeper than 64"), "{}", d.message);
        let loc = d.location.unwrap();
        assert_eq!((loc.line, loc.column), (1, 2 * MAX_DEPTH + 1));
        // flow nesting and indentation
        let flow = format!("a: {}{}\n", "[".repeat(1000), "]".repeat(1000));
        assert_eq!(parse(&flow).err().unwrap().rule, "yaml-unsupported");
        let mut indented = String::new();
        for i in 0..100 {
            indented.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        assert_eq!(parse(&indented).err().unwrap().rule, "yaml-unsupported");
        // the budget itself parses
        let ok = format!("{}x\n", "- ".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
    }

    // `report::yaml` writes what this parser reads (the test lives here: report is below spec).
    #[test]
    fn report_yaml_round_trips_through_the_spec_parser() {
        let v = serde_json::json!({"a": "12.4", "b": 12.4, "c": "yes", "d": {"e": [1, 2], "f": [{"g": "x: y", "h": ""}, {"g": "-z"}]}, "i": [], "j": {}, "k": "China Standard Time"});
        let text = crate::report::yaml::to_yaml(&v);
        let back = parse(&text).unwrap().value;
        assert_eq!(back, v, "{text}");
    }

    #[test]
    fn report_yaml_quotes_flow_list_items_with_flow_indicators() {
        let v = serde_json::json!({"alertEmails": ["stu[dio@example.com", "a,b@x.com", "c]@x.com", "{d}", "plain@x.com"]});
        let text = crate::report::yaml::to_yaml(&v);
        assert!(text.contains("\"stu[dio@example.com\""), "{text}");
        assert!(text.contains(", plain@x.com]"), "{text}");
        let back = parse(&text).unwrap().value;
        assert_eq!(back, v, "{text}");
        assert_eq!(crate::report::yaml::to_yaml(&back), text);
    }
}
