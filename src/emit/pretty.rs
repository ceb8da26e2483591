//! Pretty JSON text of a [`Value`] (the ARM emitters' tree, `emit::value`), byte for byte what
//! `serde_json::to_writer_pretty` writes of the same JSON
//! (two-space indentation, `"key": value`, `[]` and `{}` for empty containers, serde_json's
//! string escapes), written straight into one buffer.
//!
//! An ARM template is ~100 KB per spec, a third of it one base64 string (the custom data):
//! serde_json tests every byte of a string against its escape table one at a time; here blocks
//! of bytes that need no escape are found with a test the compiler vectorises and copied in one
//! go (issue 41: render at platform scale). A property test holds it to serde_json's output.

use super::value::Value;

/// `v` as pretty JSON, appended to `out`.
pub fn write(out: &mut Vec<u8>, v: &Value) {
    value(out, v, 0);
}

fn indent(out: &mut Vec<u8>, level: usize) {
    const SPACES: &[u8; 64] = &[b' '; 64];
    let mut n = level * 2;
    while n > 0 {
        let k = n.min(SPACES.len());
        out.extend_from_slice(&SPACES[..k]);
        n -= k;
    }
}

fn value(out: &mut Vec<u8>, v: &Value, level: usize) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // serde_json's own number formatting (itoa / ryu), so numbers cannot differ
        Value::Number(n) => serde_json::to_writer(&mut *out, n).expect("numbers always serialise"),
        Value::String(s) => string(out, s),
        Value::Array(items) if items.is_empty() => out.extend_from_slice(b"[]"),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
                indent(out, level + 1);
                value(out, item, level + 1);
            }
            out.push(b'\n');
            indent(out, level);
            out.push(b']');
        }
        Value::Object(map) if map.is_empty() => out.extend_from_slice(b"{}"),
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, item)) in map.iter().enumerate() {
                out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
                indent(out, level + 1);
                string(out, k);
                out.extend_from_slice(b": ");
                value(out, item, level + 1);
            }
            out.push(b'\n');
            indent(out, level);
            out.push(b'}');
        }
    }
}

/// Whether JSON needs an escape for byte `b`: `"`, `\` and the control characters below 0x20.
fn needs_escape(b: u8) -> bool {
    (b < 0x20) | (b == b'"') | (b == b'\\')
}

/// [`needs_escape`] as a table: one load per byte where a block holds an escape.
static ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b < 0x20 || b == b'"' as usize || b == b'\\' as usize;
        b += 1;
    }
    t
};

/// A JSON string with serde_json's escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and
/// `\u00xx` (lower-case hex) for the other control characters; everything else as it is.
///
/// Blocks of 32 bytes that need no escape are skipped with one test the compiler vectorises;
/// in a block that holds one, the table finds its first byte that does, and the scan goes on
/// after it (the block was tested again from each byte before it: strings full of quotes, such
/// as the GPU workbook's JSON, cost a block test per byte, issue 41).
fn string(out: &mut Vec<u8>, s: &str) {
    const BLOCK: usize = 32;
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // skip whole blocks that need no escape (no early exit inside a block: vectorised)
        if i + BLOCK <= bytes.len()
            && !bytes[i..i + BLOCK]
                .iter()
                .fold(false, |any, &b| any | needs_escape(b))
        {
            i += BLOCK;
            continue;
        }
        let end = (i + BLOCK).min(bytes.len());
        match bytes[i..end].iter().position(|&b| ESCAPE[usize::from(b)]) {
            Some(at) => i += at,
            None => {
                i = end;
                continue;
            }
        }
        let b = bytes[i];
        out.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            }
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// `v` in the emitters' tree, printed.
    fn ours(v: &Value) -> String {
        let mut out = Vec::new();
        write(&mut out, &super::Value::from(v));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn matches_serde_json_on_a_template_shape() {
        let v = serde_json::json!({
            "$schema": "https://example/x#",
            "empty": {}, "none": [], "n": [1, -2, 0.5, 1e300, u64::MAX, null, true, false],
            "nested": { "a": [ { "b": "c\"d\\e\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}é☃" } ] },
            "long": "QUJD".repeat(100) + "\n" + &"x".repeat(40),
        });
        assert_eq!(ours(&v), serde_json::to_string_pretty(&v).unwrap());
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "(\\PC|[\\u{0}-\\u{1f}\"\\\\]){0,80}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-z\"\\\\\\n]{0,6}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Any value prints exactly as serde_json's pretty printer prints it.
        #[test]
        fn any_value_prints_as_serde_json_does(v in arb_value()) {
            prop_assert_eq!(ours(&v), serde_json::to_string_pretty(&v).unwrap());
        }

        /// Long strings of runs that need no escape (of every length around the block size)
        /// between bytes that do: escaped exactly as serde_json escapes them.
        #[test]
        fn long_strings_escape_as_serde_json_does(
            parts in prop::collection::vec(("[a-zA-Z0-9+/= é☃]{0,70}", "[\"\\\\\\u{0}-\\u{1f}]{0,3}"), 0..12)
        ) {
            let s: String = parts.into_iter().map(|(run, special)| run + &special).collect();
            let v = Value::String(s);
            prop_assert_eq!(ours(&v), serde_json::to_string_pretty(&v).unwrap());
        }
    }
}
