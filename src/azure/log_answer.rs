//! A Logs Query API answer read by what the question can need: the first table's rows up to a
//! bound (a day of per-minute rows is 1,440; a summary is one row), the rest counted and
//! dropped as they are parsed, never held; other tables skipped. The body itself is bounded by
//! the API's documented maximum ([`crate::facts::limits::LOG_QUERY_MAX_BYTES`], read through
//! [`super::http::BodyLimit::LOGS`]).

use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// What the API answered, as the caller reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct LogAnswer {
    /// The answer (`tables[{name, columns, rows}]`, `error`, ...) with only the first table, and
    /// at most the bound's rows of it.
    pub value: Value,
    /// Rows the first table held in the answer.
    pub rows: usize,
    /// Rows kept in [`Self::value`].
    pub kept: usize,
}

impl LogAnswer {
    /// The rows left out, when the answer held more than the question needs.
    pub fn cut(&self) -> Option<usize> {
        (self.rows > self.kept).then(|| self.rows - self.kept)
    }
}

/// Parse `body`, keeping at most `max_rows` rows of the first table.
pub fn parse(body: &[u8], max_rows: usize) -> serde_json::Result<LogAnswer> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let a = Top { max_rows }.deserialize(&mut de)?;
    de.end()?;
    Ok(a)
}

/// A value of another type than the one expected (a string, number, boolean or null where a
/// list or object belongs) is kept as it is, clipped when a string, for the caller to call
/// malformed; it counts no rows.
macro_rules! kept_as_they_are {
    () => {
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok((Value::String(crate::diag::clip(v).into_owned()), 0, 0))
        }
        fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
            Ok((Value::Bool(v), 0, 0))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok((Value::from(v), 0, 0))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok((Value::from(v), 0, 0))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
            Ok((Value::from(v), 0, 0))
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok((Value::Null, 0, 0))
        }
    };
}

/// An object whose `key` is read through `seed` (which bounds and counts rows) and whose other
/// keys are kept as they are: the answer's top level (`tables`) and a table (`rows`).
fn object_with<'de, A, S>(
    mut m: A,
    key: &str,
    seed: S,
) -> Result<(Map<String, Value>, usize, usize), A::Error>
where
    A: MapAccess<'de>,
    S: DeserializeSeed<'de, Value = (Value, usize, usize)> + Copy,
{
    let mut out = Map::new();
    let (mut rows, mut kept) = (0, 0);
    while let Some(k) = m.next_key::<String>()? {
        if k == key {
            let (v, r, kp) = m.next_value_seed(seed)?;
            (rows, kept) = (r, kp);
            out.insert(k, v);
        } else {
            out.insert(k, m.next_value::<Value>()?);
        }
    }
    Ok((out, rows, kept))
}

struct Top {
    max_rows: usize,
}

impl<'de> DeserializeSeed<'de> for Top {
    type Value = LogAnswer;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<LogAnswer, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top {
    type Value = LogAnswer;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Logs Query API answer (a JSON object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<LogAnswer, A::Error> {
        let seed = Tables {
            max_rows: self.max_rows,
        };
        let (out, rows, kept) = object_with(m, "tables", seed)?;
        Ok(LogAnswer {
            value: Value::Object(out),
            rows,
            kept,
        })
    }
}

/// `tables`: the first one bounded, the others skipped (a value of another type kept as is, for
/// the caller to call malformed).
#[derive(Clone, Copy)]
struct Tables {
    max_rows: usize,
}

impl<'de> DeserializeSeed<'de> for Tables {
    type Value = (Value, usize, usize);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tables {
    type Value = (Value, usize, usize);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of tables")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let first = s.next_element_seed(Table {
            max_rows: self.max_rows,
        })?;
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(match first {
            Some((t, rows, kept)) => (Value::Array(vec![t]), rows, kept),
            None => (Value::Array(Vec::new()), 0, 0),
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok((Value::Object(Map::new()), 0, 0))
    }
    kept_as_they_are!();
}

/// One table: `rows` bounded, the other keys (`name`, `columns`) kept.
#[derive(Clone, Copy)]
struct Table {
    max_rows: usize,
}

impl<'de> DeserializeSeed<'de> for Table {
    type Value = (Value, usize, usize);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Table {
    type Value = (Value, usize, usize);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table")
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
        let seed = Rows {
            max_rows: self.max_rows,
        };
        let (out, rows, kept) = object_with(m, "rows", seed)?;
        Ok((Value::Object(out), rows, kept))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok((Value::Array(Vec::new()), 0, 0))
    }
    kept_as_they_are!();
}

/// `rows`: the first `max_rows` kept, the rest counted and skipped as they are parsed.
#[derive(Clone, Copy)]
struct Rows {
    max_rows: usize,
}

impl<'de> DeserializeSeed<'de> for Rows {
    type Value = (Value, usize, usize);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Rows {
    type Value = (Value, usize, usize);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of rows")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let mut kept = Vec::new();
        let mut rows = 0usize;
        loop {
            if kept.len() < self.max_rows {
                match s.next_element::<Value>()? {
                    Some(r) => kept.push(r),
                    None => break,
                }
            } else if s.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            rows += 1;
        }
        let n = kept.len();
        Ok((Value::Array(kept), rows, n))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok((Value::Object(Map::new()), 0, 0))
    }
    kept_as_they_are!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_beyond_the_bound_are_counted_not_kept() {
        let rows: Vec<Value> = (0..5000).map(|i| json!([format!("m{i}"), "1"])).collect();
        let body = json!({"tables": [
            {"name": "PrimaryResult", "columns": [{"name": "Minute", "type": "datetime"}, {"name": "N", "type": "long"}], "rows": rows},
            {"name": "second", "columns": [], "rows": [[1]]}
        ], "statistics": {"x": 1}});
        let a = parse(body.to_string().as_bytes(), 1440).unwrap();
        assert_eq!((a.rows, a.kept, a.cut()), (5000, 1440, Some(3560)));
        let t = &a.value["tables"];
        assert_eq!(t.as_array().unwrap().len(), 1);
        assert_eq!(t[0]["rows"].as_array().unwrap().len(), 1440);
        assert_eq!(t[0]["rows"][1439], json!(["m1439", "1"]));
        assert_eq!(t[0]["columns"][0]["name"], "Minute");
        assert_eq!(a.value["statistics"], json!({"x": 1}));
        // within the bound: the answer as it was, minus other tables
        let small = json!({"tables": [{"name": "t", "columns": [], "rows": [[1], [2]]}]});
        let a = parse(small.to_string().as_bytes(), 1440).unwrap();
        assert_eq!((a.rows, a.kept, a.cut()), (2, 2, None));
        assert_eq!(a.value, small);
        // malformed shapes come through for the caller to name
        let a = parse(br#"{"tables": "x", "error": {"code": "E"}}"#, 5).unwrap();
        assert_eq!(a.value, json!({"tables": "x", "error": {"code": "E"}}));
        let a = parse(br#"{"tables": [{"rows": {"a": 1}}]}"#, 5).unwrap();
        assert_eq!(a.value, json!({"tables": [{"rows": {}}]}));
        assert!(parse(b"[1]", 5).is_err());
        assert!(parse(br#"{"tables": []} x"#, 5).is_err());
    }
}
