//! A YAML writer for JSON values: block mappings, flow lists of scalars, and double quotes
//! wherever a plain scalar would read back as something else.

use serde_json::Value;

pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, 0, true);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // every `##` is inside a double-quoted scalar ([`needs_quotes`]), where `\u0023` reads back
    // as `#`: no line a CI runner takes for a command (`super::ci`)
    super::ci::json(&out).into_owned()
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

fn write_value(out: &mut String, v: &Value, indent: usize, top: bool) {
    match v {
        Value::Object(map) if map.is_empty() => out.push_str("{}\n"),
        Value::Object(map) => {
            if !top {
                out.push('\n');
            }
            for (k, val) in map {
                out.push_str(&" ".repeat(indent));
                out.push_str(&scalar_str(k));
                out.push(':');
                match val {
                    Value::Object(m) if !m.is_empty() => write_value(out, val, indent + 2, false),
                    Value::Array(a) if !a.is_empty() && !a.iter().all(is_scalar) => {
                        write_value(out, val, indent + 2, false)
                    }
                    _ => {
                        out.push(' ');
                        write_value(out, val, indent + 2, false);
                    }
                }
            }
        }
        Value::Array(items) if items.iter().all(is_scalar) => {
            out.push('[');
            out.push_str(&items.iter().map(flow_scalar).collect::<Vec<_>>().join(", "));
            out.push_str("]\n");
        }
        Value::Array(items) => {
            if !top {
                out.push('\n');
            }
            for item in items {
                out.push_str(&" ".repeat(indent.saturating_sub(2)));
                out.push_str("- ");
                match item {
                    Value::Object(m) if !m.is_empty() => {
                        // first key on the dash line
                        let mut first = true;
                        for (k, val) in m {
                            if !first {
                                out.push_str(&" ".repeat(indent));
                            }
                            first = false;
                            out.push_str(&scalar_str(k));
                            out.push(':');
                            match val {
                                Value::Object(mm) if !mm.is_empty() => {
                                    write_value(out, val, indent + 2, false)
                                }
                                Value::Array(a) if !a.is_empty() && !a.iter().all(is_scalar) => {
                                    write_value(out, val, indent + 2, false)
                                }
                                _ => {
                                    out.push(' ');
                                    write_value(out, val, indent + 2, false);
                                }
                            }
                        }
                    }
                    other => write_value(out, other, indent + 2, false),
                }
            }
        }
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => scalar_str(s),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// A scalar inside a flow sequence (`[a, b]`): flow indicators (`,[]{}`) end a plain scalar
/// there, and a reader may take a ` -` before `]` for an indicator (`[a -]` does not re-read),
/// so an item is written plain only when it is made of characters that are never indicators
/// there (an e-mail address, a name); anything else is quoted
/// (`alertEmails: ["stu[dio@example.com", "a -"]`).
fn flow_scalar(v: &Value) -> String {
    match v {
        Value::String(s)
            if !s
                .chars()
                .all(|c| c.is_alphanumeric() || "@._+/=~-".contains(c)) =>
        {
            quoted(s)
        }
        other => scalar(other),
    }
}

fn scalar_str(s: &str) -> String {
    if needs_quotes(s) || s.chars().any(needs_escape) {
        quoted(s)
    } else {
        s.to_string()
    }
}

/// Characters a YAML reader refuses raw (a byte-order mark inside a document, C0/C1 controls,
/// non-characters) or that would change on a round trip (line and paragraph separators).
fn needs_escape(c: char) -> bool {
    c == '\u{feff}'
        || c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}')
}

/// A double-quoted scalar (JSON string syntax is YAML's) with [`needs_escape`] characters
/// written as `\uXXXX`, so the output is plain ASCII-safe text that re-reads to the same value.
fn quoted(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_default();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{:04X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || s.trim() != s {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "null"
            | "~"
            | "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | ".nan"
            | ".inf"
            | "-.inf"
            | "+.inf"
    ) {
        return true;
    }
    if s.parse::<f64>().is_ok() || s.starts_with("0x") || s.starts_with("0o") {
        return true;
    }
    // YAML 1.1 readers (PyYAML, `yaml.safe_load`) take more than YAML 1.2 does: sexagesimal
    // numbers (`18:00` is 1080), dates (`2026-12-01`), `1_000`, `0b101` and `y`/`n` booleans.
    // Quote anything made only of digits and number punctuation (issue 10, item 17).
    if s.chars().any(|c| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_digit() || "-+.:_".contains(c))
    {
        return true;
    }
    if matches!(lower.as_str(), "y" | "n") || lower.starts_with("0b") {
        return true;
    }
    if s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c)) {
        return true;
    }
    s.contains(": ")
        || s.contains(" #")
        || s.contains("##")
        || s.ends_with(':')
        || s.chars().any(|c| c.is_control())
}
