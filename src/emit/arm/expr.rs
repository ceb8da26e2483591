//! The spelling of ARM values: literals, expressions, numbers; shared by every resource family.

use crate::emit::value::Value;

use crate::emit::value::json;

/// A literal string value: ARM would evaluate a string that starts with `[` and ends with `]`
/// as an expression; `[[` escapes it.
pub fn lit(s: &str) -> Value {
    Value::String(lit_text(s).into())
}

pub(super) fn lit_text(s: &str) -> String {
    if s.starts_with('[') && s.ends_with(']') {
        format!("[{s}")
    } else {
        s.to_string()
    }
}

/// A string literal inside an ARM expression: single quotes, `'` doubled.
pub fn q(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_q(&mut out, s);
    out
}

/// [`q`] of `s`, appended to `out` (no string of its own).
pub(super) fn push_q(out: &mut String, s: &str) {
    out.push('\'');
    let mut parts = s.split('\'');
    out.push_str(parts.next().unwrap_or_default());
    for part in parts {
        out.push_str("''");
        out.push_str(part);
    }
    out.push('\'');
}

/// `[expr]` as a JSON string (an owned expression is bracketed in place, not copied).
pub(super) fn x(expr: impl Into<String>) -> Value {
    let mut s: String = expr.into();
    s.reserve(2);
    s.insert(0, '[');
    s.push(']');
    Value::String(s.into())
}

/// A JSON number from an f64 (integers without a fraction).
pub(super) fn n(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}
/// Insert `key: value` into an object value.
pub(super) fn put(obj: &mut Value, key: &'static str, value: Value) {
    if let Value::Object(m) = obj {
        m.insert(key.into(), value);
    }
}

/// Plan values (extension settings) as ARM literals.
pub(super) fn literalize(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::String(s) => lit(s),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(literalize).collect()),
        serde_json::Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (lit_text(k), literalize(v)))
                .collect(),
        ),
        other => Value::from(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `q` doubles every quote wherever it is; `x` brackets owned and borrowed expressions alike.
    #[test]
    fn quotes_and_brackets() {
        for s in ["", "'", "''", "a'b", "'a'", "it's 'x'", "plain"] {
            assert_eq!(q(s), format!("'{}'", s.replace('\'', "''")), "{s:?}");
        }
        assert_eq!(x("f()"), Value::from("[f()]"));
        assert_eq!(x(String::from("g('a')")), Value::from("[g('a')]"));
    }
}
