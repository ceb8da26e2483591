//! The tuned spec's text, checked before anything uses it: the edits are applied, the result is
//! parsed again, and it must mean exactly the document the tune intends (the old document with
//! each edit's value at its pointer) and nothing else. A text that means anything more (an anchor
//! other fields share, an alias, a comment in the way) is refused with the reason; the proposal
//! is then simulated from the intended document itself and printed for the user to apply by hand.

use serde_json::Value;

use super::edit::{Edit, apply_edits, dotted};
use crate::spec::yaml;

/// The document `old` with each edit's value set at its pointer (removed where it has none).
pub fn intended(old: &Value, edits: &[Edit]) -> Value {
    let mut v = old.clone();
    for e in edits {
        set_pointer(&mut v, &e.pointer, e.value.clone());
    }
    v
}

/// `text` with `edits` applied, if it parses to exactly [`intended`]; else why not.
pub fn rewrite(text: &str, edits: &[Edit]) -> Result<String, String> {
    if let Some(why) = edits.iter().find_map(|e| e.unplaced.clone()) {
        return Err(why);
    }
    let old = yaml::parse(text)
        .map_err(|d| format!("the spec does not parse: {}", d.message))?
        .value;
    let new = apply_edits(text, edits.to_vec());
    let parsed = yaml::parse(&new)
        .map_err(|d| format!("the edited text would not parse ({})", d.message))?
        .value;
    let want = intended(&old, edits);
    match first_difference(&want, &parsed, String::new()) {
        None => Ok(new),
        Some(ptr) => {
            let shared = text.contains('&') || text.contains('*');
            Err(format!(
                "editing the text would also change `{}`{}",
                dotted(&ptr),
                if shared {
                    " (an anchor or alias shares the value with other fields)"
                } else {
                    ""
                }
            ))
        }
    }
}

/// The changes as people read them, one per line: `  spec.capacity.min: 0 -> 1`.
pub fn describe(old: &Value, edits: &[Edit]) -> String {
    let mut s = String::new();
    for e in edits {
        let was = old.pointer(&e.pointer).map_or("(absent)".into(), show);
        let now = e.value.as_ref().map_or("(removed)".into(), show);
        s.push_str(&format!("  {}: {was} -> {now}\n", dotted(&e.pointer)));
    }
    s
}

fn show(v: &Value) -> String {
    let t = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    crate::diag::clip(&t).into_owned()
}

fn unescape(seg: &str) -> String {
    seg.replace("~1", "/").replace("~0", "~")
}

/// Set (or, with `None`, remove) the node at a JSON pointer, creating mappings on the way.
fn set_pointer(root: &mut Value, ptr: &str, new: Option<Value>) {
    let segs: Vec<String> = ptr.split('/').skip(1).map(unescape).collect();
    let Some((last, path)) = segs.split_last() else {
        if let Some(n) = new {
            *root = n;
        }
        return;
    };
    let mut cur = root;
    for s in path {
        cur = match cur {
            Value::Array(a) => match s.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return,
            },
            Value::Object(m) => m
                .entry(s.clone())
                .or_insert_with(|| Value::Object(Default::default())),
            _ => return,
        };
    }
    match (cur, new) {
        (Value::Object(m), Some(n)) => {
            m.insert(last.clone(), n);
        }
        (Value::Object(m), None) => {
            m.shift_remove(last);
        }
        (Value::Array(a), Some(n)) => {
            if let Some(x) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *x = n;
            }
        }
        (Value::Array(a), None) => {
            if let Some(i) = last.parse::<usize>().ok().filter(|i| *i < a.len()) {
                a.remove(i);
            }
        }
        _ => {}
    }
}

/// The first pointer where `a` and `b` differ (mapping order ignored).
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, p) {
                            return Some(d);
                        }
                    }
                    None => return Some(p),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(v, w, format!("{at}/{i}")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{at}/{}", x.len().min(y.len())))
        }
        _ => (a != b).then_some(at),
    }
}

#[cfg(test)]
mod tests {
    use super::super::edit::set;
    use super::*;

    fn run(text: &str, changes: &[(&str, &str, &str)]) -> Result<String, String> {
        let p = yaml::parse(text).unwrap();
        let edits: Vec<Edit> = changes
            .iter()
            .map(|(parent, key, v)| set(&p.index, text, parent, key, v).unwrap())
            .collect();
        rewrite(text, &edits)
    }

    #[test]
    fn a_flow_mapping_ending_in_a_comment_gets_the_key_before_the_comment() {
        let text = "spec:\n  q: {a: 1,\n    b: 2   # tuned by hand, don't {touch}\n  }\n";
        let out = run(text, &[("/spec/q", "c", "3")]).unwrap();
        assert_eq!(
            out,
            "spec:\n  q: {a: 1,\n    b: 2, c: 3   # tuned by hand, don't {touch}\n  }\n"
        );
        // a comment with a closing brace before the real one
        let text = "spec:\n  q: {a: 1,  # old: {b: 9}}\n    b: 2}  # end\n";
        let out = run(text, &[("/spec/q", "c", "3")]).unwrap();
        assert_eq!(
            out,
            "spec:\n  q: {a: 1,  # old: {b: 9}}\n    b: 2, c: 3}  # end\n"
        );
    }

    #[test]
    fn crlf_anchors_and_block_collections() {
        let text = "spec:\r\n  a: 1\r\n  t:\r\n    - x: 1\r\n      y: 2\r\n  z: 0\r\n";
        let out = run(text, &[("/spec", "b", "2"), ("/spec", "t", "[{x: 3}]")]).unwrap();
        assert_eq!(
            out,
            "spec:\r\n  a: 1\r\n  t: [{x: 3}]\r\n  z: 0\r\n  b: 2\r\n"
        );
        // an anchor nobody reuses keeps its name; one that is reused is refused
        let out = run("spec:\n  a: &x 1\n", &[("/spec", "a", "2")]).unwrap();
        assert_eq!(out, "spec:\n  a: &x 2\n");
        let e = run("spec:\n  a: &x 1\n  b: *x\n", &[("/spec", "a", "2")]).unwrap_err();
        assert!(e.contains("`spec.b`") && e.contains("anchor"), "{e}");
        // the alias itself becomes a literal: only that field changes
        let out = run("spec:\n  a: &x 1\n  b: *x\n", &[("/spec", "b", "2")]).unwrap();
        assert_eq!(out, "spec:\n  a: &x 1\n  b: 2\n");
        // a key under an aliased mapping is the anchor's own text: refused
        let e = run("spec:\n  a: &m {k: 1}\n  b: *m\n", &[("/spec/b", "k", "2")]).unwrap_err();
        assert!(e.contains("spec.a.k"), "{e}");
        let e = run("spec:\n  a: &m {k: 1}\n  b: *m\n", &[("/spec/b", "j", "2")]).unwrap_err();
        assert!(e.contains("alias"), "{e}");
    }

    #[test]
    fn intended_and_described() {
        let old = serde_json::json!({"spec": {"a": 1, "s": [{"m": 0}]}});
        let e = vec![
            Edit {
                start: 0,
                end: 0,
                text: String::new(),
                pointer: "/spec/s/0/m".into(),
                value: Some(2.into()),
                unplaced: None,
            },
            Edit::unplaced("/spec/n/x", Some("PT5M".into()), "why".into()),
        ];
        assert_eq!(
            intended(&old, &e),
            serde_json::json!({"spec": {"a": 1, "s": [{"m": 2}], "n": {"x": "PT5M"}}})
        );
        assert_eq!(
            describe(&old, &e),
            "  spec.s.0.m: 0 -> 2\n  spec.n.x: (absent) -> PT5M\n"
        );
        assert_eq!(rewrite("spec: {}\n", &e).unwrap_err(), "why");
    }
}
