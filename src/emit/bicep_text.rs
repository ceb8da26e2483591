//! Bicep text: string escaping, number and value literals, comment text; what the compiled
//! templates ([`super::hbs`]) and the Handlebars helpers of [`super::bicep`] write.

use serde_json::Value;

use super::value::Value as Tree;

/// Escape text for the inside of a single-quoted Bicep string: `\`, `'`, `${` (interpolation),
/// newline, carriage return, tab, and every other control character as `\u{…}`.
///
/// Handlebars calls it for every `{{value}}` of every template: most values need no escaping,
/// and those are copied in one go (printable ASCII other than `\`, `'` and `$`: the characters
/// the loop below would push unchanged).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(s, &mut out);
    out
}

/// [`escape`], appended to `out`.
pub fn escape_into(s: &str, out: &mut String) {
    if copies_through(s.as_bytes()) {
        out.push_str(s);
    } else {
        escape_chars(s, out);
    }
}

/// Whether every byte of `s` is printable ASCII other than `\`, `'` and `$`. Blocks of 64 bytes
/// are tested without an early exit inside the block, which the compiler turns into vector
/// instructions: the base64 custom data (~45 KB per spec) went through a byte-at-a-time test
/// that was ~9 % of a render's CPU time at platform scale (issue 41).
fn copies_through(s: &[u8]) -> bool {
    fn plain(b: u8) -> bool {
        (b' '..=b'~').contains(&b) & (b != b'\\') & (b != b'\'') & (b != b'$')
    }
    let mut blocks = s.chunks_exact(64);
    for block in &mut blocks {
        if !block.iter().fold(true, |ok, &b| ok & plain(b)) {
            return false;
        }
    }
    blocks.remainder().iter().all(|&b| plain(b))
}

/// The bytes [`escape_chars`] looks at: those it may replace (`\\`, `'`, `$`, C0 controls, DEL)
/// and 0xC2, the lead byte of the C1 controls.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b < 0x20
            || b == 0x7f
            || b == 0xc2
            || b == b'\\' as usize
            || b == b'\'' as usize
            || b == b'$' as usize;
        b += 1;
    }
    t
};

/// [`escape`] of a string that needs it: the characters that stay as they are are copied in
/// runs between the ones replaced (the GPU workbook's JSON, ~5 KB per spec, has many quotes).
/// The string is walked byte by byte, not decoded into characters: every character replaced is
/// ASCII or one of the C1 controls U+0080-U+009F (UTF-8 `C2 80`-`C2 9F`), the only controls
/// above ASCII (`char::is_control` is the general category Cc).
fn escape_chars(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    out.reserve(s.len() + 8);
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        // the bytes that never change are skipped by a table lookup each, not the match below
        // (a jump per byte was ~5 % of a render's CPU time at platform scale, issue 41)
        if !SPECIAL[bytes[i] as usize] {
            i += 1;
            continue;
        }
        let b = bytes[i];
        let code;
        let (replacement, width) = match b {
            b'\\' => ("\\\\", 1),
            b'\'' => ("\\'", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            b'\t' => ("\\t", 1),
            b'$' if bytes.get(i + 1) == Some(&b'{') => ("\\$", 1),
            0x00..=0x1f | 0x7f => {
                code = format!("\\u{{{b:X}}}");
                (code.as_str(), 1)
            }
            // U+0080-U+009F: the code point is the second byte
            0xc2 if matches!(bytes.get(i + 1), Some(0x80..=0x9f)) => {
                code = format!("\\u{{{:X}}}", bytes[i + 1]);
                (code.as_str(), 2)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[copied..i]);
        out.push_str(replacement);
        i += width;
        copied = i;
    }
    out.push_str(&s[copied..]);
}

/// A Bicep number literal: integers as they are, other values through `json('…')` (Bicep has
/// no decimal literals).
pub fn number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        format!("{}", f as i64)
    } else {
        format!("json('{f}')")
    }
}

/// Any JSON value as a Bicep literal; nested lines are indented from `indent`.
pub fn literal(v: &Value, indent: usize) -> String {
    let mut out = String::new();
    literal_into(&Tree::from(v), indent, &mut out);
    out
}

/// [`literal`] of a value of the compact tree (the compiled templates' context), appended to
/// `out`.
pub fn literal_into(v: &Tree, indent: usize, out: &mut String) {
    match v {
        Tree::Null => out.push_str("null"),
        Tree::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Tree::Number(n) => out.push_str(&number(n)),
        Tree::String(s) => {
            out.push('\'');
            escape_into(s, out);
            out.push('\'');
        }
        Tree::Array(items) if items.is_empty() => out.push_str("[]"),
        Tree::Array(items) => {
            out.push_str("[\n");
            for item in items {
                pad(indent + 2, out);
                literal_into(item, indent + 2, out);
                out.push('\n');
            }
            pad(indent, out);
            out.push(']');
        }
        Tree::Object(map) if map.is_empty() => out.push_str("{}"),
        Tree::Object(map) => {
            out.push_str("{\n");
            for (k, item) in map.iter() {
                pad(indent + 2, out);
                key_into(k, out);
                out.push_str(": ");
                literal_into(item, indent + 2, out);
                out.push('\n');
            }
            pad(indent, out);
            out.push('}');
        }
    }
}

fn pad(n: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// An object key: bare when it is an identifier, quoted otherwise.
fn key_into(k: &str, out: &mut String) {
    let ident = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident {
        out.push_str(k);
    } else {
        out.push('\'');
        escape_into(k, out);
        out.push('\'');
    }
}

/// Text for a `//` comment: control characters (line breaks) become spaces, so a value can
/// never end the comment. Quotes stay as they are.
pub fn comment(s: &str) -> String {
    // most values hold no control character (C0, DEL, or C1 after a 0xC2 byte): copied whole
    if !s.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2) {
        return s.to_owned();
    }
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
