//! The spelling of ARM values: literals, expressions, numbers; shared by every resource family.

use serde_json::Value;

use crate::emit::value::json;

/// A literal string value: ARM would evaluate a string that starts with `[` and ends with `]`
/// as an expression; `[[` escapes it.
pub fn lit(s: &str) -> Value {
    Value::String(lit_text(s))
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
    format!("'{}'", s.replace('\'', "''"))
}

/// `[expr]` as a JSON string.
pub(super) fn x(expr: impl AsRef<str>) -> Value {
    Value::String(format!("[{}]", expr.as_ref()))
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
pub(super) fn put(obj: &mut Value, key: &str, value: Value) {
    if let Value::Object(m) = obj {
        m.insert(key.to_string(), value);
    }
}

/// Plan values (extension settings) as ARM literals.
pub(super) fn literalize(v: &Value) -> Value {
    match v {
        Value::String(s) => lit(s),
        Value::Array(a) => Value::Array(a.iter().map(literalize).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (lit_text(k), literalize(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
