//! The ARM emitters' JSON tree and its `json!` macro.
//!
//! A compact tree rather than `serde_json::Value` (issue 41: render at platform scale): an
//! object is a vector of `(key, value)` pairs (no hash table, no hashing of every key, as
//! serde_json's `preserve_order` map does), keys and string values written in the source are
//! borrowed (`&'static str`, no allocation), and a value is 32 bytes instead of 80. The
//! semantics are serde_json's with `preserve_order`: [`Map::insert`] replaces the value of a
//! key in place and appends a new key, [`Map::remove`] is serde_json's `remove` (a
//! `swap_remove`: the last entry takes the removed one's place), so the text
//! (`emit::pretty`) is byte for byte what serde_json printed of the old tree (the goldens and
//! the tests below hold it to that).
//!
//! `json!` has the syntax of serde_json's macro (object and array literals, any expression as
//! a value); each expression's value is moved into the tree ([`Put`]), never copied.

use std::borrow::Cow;

use serde_json::Number;

/// A key or a string value: borrowed when it is written in the source.
pub type Str = Cow<'static, str>;

/// A JSON value of the ARM template.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(Number),
    String(Str),
    Array(Vec<Value>),
    Object(Map),
}

/// A JSON object: its entries in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Map(Vec<(Str, Value)>);

impl Map {
    pub fn new() -> Map {
        Map(Vec::new())
    }

    pub fn with_capacity(n: usize) -> Map {
        Map(Vec::with_capacity(n))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `key: value`: replaces the value in place when the key is there, appends it otherwise
    /// (serde_json's `insert` with `preserve_order`).
    pub fn insert(&mut self, key: Str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }

    /// Appends an entry whose key is not there yet (the entries of a `json!` literal).
    pub fn push(&mut self, key: &'static str, value: Value) {
        debug_assert!(self.0.iter().all(|(k, _)| k != key), "duplicate key {key}");
        self.0.push((Cow::Borrowed(key), value));
    }

    /// Removes `key` as serde_json's `remove` does with `preserve_order` (`swap_remove`: the
    /// last entry moves into its place).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.swap_remove(i).1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Str, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl Extend<(Str, Value)> for Map {
    fn extend<I: IntoIterator<Item = (Str, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(Cow::Owned(k), v);
        }
    }
}

impl IntoIterator for Map {
    type Item = (Str, Value);
    type IntoIter = std::vec::IntoIter<(Str, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<K: Into<Str>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Map {
        let mut m = Map::new();
        for (k, v) in iter {
            m.insert(k.into(), v);
        }
        m
    }
}

impl FromIterator<Value> for Value {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Value {
        Value::Array(iter.into_iter().collect())
    }
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The value of `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.get(key),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.as_object_mut()?.get_mut(key)
    }

    /// The same value as a `serde_json::Value` (for the commands that read the template as
    /// JSON: destroy, the landing zone's preflight).
    pub fn into_serde(self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(n) => serde_json::Value::Number(n),
            Value::String(s) => serde_json::Value::String(s.into_owned()),
            Value::Array(a) => {
                serde_json::Value::Array(a.into_iter().map(Value::into_serde).collect())
            }
            Value::Object(m) => serde_json::Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k.into_owned(), v.into_serde()))
                    .collect(),
            ),
        }
    }
}

static NULL: Value = Value::Null;

/// `v["key"]`: the value of `key` of an object, `null` otherwise (as serde_json's).
impl std::ops::Index<&str> for Value {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

/// `v["key"] = ...`: as serde_json's, `null` becomes an object and a missing key is appended
/// (as `null`, then assigned); panics on any other value.
impl std::ops::IndexMut<&str> for Value {
    fn index_mut(&mut self, key: &str) -> &mut Value {
        if let Value::Null = self {
            *self = Value::Object(Map::new());
        }
        let Value::Object(m) = self else {
            panic!("cannot access key {key:?} in a JSON value that is not an object");
        };
        let i = match m.0.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                m.0.push((Cow::Owned(key.to_owned()), Value::Null));
                m.0.len() - 1
            }
        };
        &mut m.0[i].1
    }
}

impl From<&serde_json::Value> for Value {
    fn from(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(n.clone()),
            serde_json::Value::String(s) => Value::String(Cow::Owned(s.clone())),
            serde_json::Value::Array(a) => Value::Array(a.iter().map(Value::from).collect()),
            serde_json::Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (Cow::Owned(k.clone()), Value::from(v)))
                    .collect(),
            ),
        }
    }
}

impl From<&'static str> for Value {
    fn from(s: &'static str) -> Value {
        Value::String(Cow::Borrowed(s))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(Cow::Owned(s))
    }
}

/// A value as it goes into the tree: what `serde_json::to_value` makes of it, without the copy
/// when it is a `Value` already.
pub trait Put {
    fn put(self) -> Value;
}

impl Put for Value {
    fn put(self) -> Value {
        self
    }
}

impl Put for &Value {
    fn put(self) -> Value {
        self.clone()
    }
}

impl Put for Map {
    fn put(self) -> Value {
        Value::Object(self)
    }
}

impl<T: Put> Put for Vec<T> {
    fn put(self) -> Value {
        Value::Array(self.into_iter().map(Put::put).collect())
    }
}

impl<'a, T> Put for &'a Vec<T>
where
    &'a T: Put,
{
    fn put(self) -> Value {
        Value::Array(self.iter().map(Put::put).collect())
    }
}

impl<'a, T> Put for &'a [T]
where
    &'a T: Put,
{
    fn put(self) -> Value {
        Value::Array(self.iter().map(Put::put).collect())
    }
}

impl Put for String {
    fn put(self) -> Value {
        Value::String(Cow::Owned(self))
    }
}

impl Put for &String {
    fn put(self) -> Value {
        Value::String(Cow::Owned(self.clone()))
    }
}

/// Text written in the source (or a `&'static str` of the facts): borrowed, not copied.
impl Put for &'static str {
    fn put(self) -> Value {
        Value::String(Cow::Borrowed(self))
    }
}

impl Put for &&'static str {
    fn put(self) -> Value {
        Value::String(Cow::Borrowed(*self))
    }
}

impl Put for bool {
    fn put(self) -> Value {
        Value::Bool(self)
    }
}

impl Put for &bool {
    fn put(self) -> Value {
        Value::Bool(*self)
    }
}

impl Put for f64 {
    /// As serde_json serialises an `f64`: `null` when it is not finite.
    fn put(self) -> Value {
        Number::from_f64(self).map_or(Value::Null, Value::Number)
    }
}

impl Put for &f64 {
    fn put(self) -> Value {
        (*self).put()
    }
}

impl<T: Put> Put for Option<T> {
    fn put(self) -> Value {
        self.map_or(Value::Null, Put::put)
    }
}

impl<T: Put + Clone> Put for &Option<T> {
    fn put(self) -> Value {
        self.clone().put()
    }
}

macro_rules! put_integers {
    ($($t:ty),*) => {$(
        impl Put for $t {
            fn put(self) -> Value {
                Value::Number(Number::from(self))
            }
        }
        impl Put for &$t {
            fn put(self) -> Value {
                Value::Number(Number::from(*self))
            }
        }
    )*};
}
put_integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// An empty array for `json!` to push onto (a function, so that clippy does not read the
/// macro's pushes as a `vec![]` written out by hand).
pub fn new_array() -> Vec<Value> {
    Vec::new()
}

/// serde_json's `json!` syntax, building a [`Value`]; expressions are moved in ([`Put`]).
macro_rules! json {
    (null) => {
        $crate::emit::value::Value::Null
    };
    ({ $($tt:tt)* }) => {{
        #[allow(unused_mut)]
        let mut object = $crate::emit::value::Map::new();
        $crate::emit::value::json_object!(object; $($tt)*);
        $crate::emit::value::Value::Object(object)
    }};
    ([ $($tt:tt)* ]) => {{
        #[allow(unused_mut)]
        let mut array = $crate::emit::value::new_array();
        $crate::emit::value::json_array!(array; $($tt)*);
        $crate::emit::value::Value::Array(array)
    }};
    ($e:expr) => {
        $crate::emit::value::Put::put($e)
    };
}

/// The entries of a `json!` object, appended to `$m` in order.
macro_rules! json_object {
    ($m:ident;) => {};
    ($m:ident; $k:literal : null $(, $($rest:tt)*)?) => {
        $m.push($k, $crate::emit::value::Value::Null);
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
    ($m:ident; $k:literal : { $($v:tt)* } $(, $($rest:tt)*)?) => {
        $m.push($k, $crate::emit::value::json!({ $($v)* }));
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
    ($m:ident; $k:literal : [ $($v:tt)* ] $(, $($rest:tt)*)?) => {
        $m.push($k, $crate::emit::value::json!([ $($v)* ]));
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
    ($m:ident; $k:literal : $v:expr $(, $($rest:tt)*)?) => {
        $m.push($k, $crate::emit::value::Put::put($v));
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
}

/// The items of a `json!` array, pushed onto `$a` in order.
macro_rules! json_array {
    ($a:ident;) => {};
    ($a:ident; null $(, $($rest:tt)*)?) => {
        $a.push($crate::emit::value::Value::Null);
        $($crate::emit::value::json_array!($a; $($rest)*);)?
    };
    ($a:ident; { $($v:tt)* } $(, $($rest:tt)*)?) => {
        $a.push($crate::emit::value::json!({ $($v)* }));
        $($crate::emit::value::json_array!($a; $($rest)*);)?
    };
    ($a:ident; [ $($v:tt)* ] $(, $($rest:tt)*)?) => {
        $a.push($crate::emit::value::json!([ $($v)* ]));
        $($crate::emit::value::json_array!($a; $($rest)*);)?
    };
    ($a:ident; $v:expr $(, $($rest:tt)*)?) => {
        $a.push($crate::emit::value::Put::put($v));
        $($crate::emit::value::json_array!($a; $($rest)*);)?
    };
}

pub(crate) use {json, json_array, json_object};

#[cfg(test)]
mod tests {
    use super::*;

    /// The same trees as serde_json's macro for every kind of value the emitters give it.
    #[test]
    fn builds_what_serde_json_builds() {
        let props = serde_json::json!({ "a": [1, { "b": "c" }], "d": null });
        let ours_props = Value::from(&props);
        let name = String::from("[x]");
        let opt: Option<u32> = None;
        let list = vec![Value::from("one"), Value::from(String::from("two"))];
        let theirs_list = vec![
            serde_json::Value::from("one"),
            serde_json::Value::from("two"),
        ];
        // one literal, given to both macros (`p`, `l`: the same values in each one's own tree)
        macro_rules! literal {
            ($m:ident, $p:expr, $l:expr) => {
                $m!({
                    "type": "Microsoft.X/y",
                    "props": $p,
                    "name": &name,
                    "owned": name.clone(),
                    "n": 3u32, "neg": -4i64, "f": 0.5, "nan": f64::NAN, "t": true,
                    "none": opt, "some": Some(7u8), "null": null,
                    "nested": { "arr": [ { "k": "v" }, [], [1, null, "s"], $l ], "empty": {} },
                    "last": "trailing",
                })
            };
        }
        use serde_json::json as serde_json_macro;
        let ours = literal!(json, ours_props.clone(), list.clone()).into_serde();
        let theirs = literal!(serde_json_macro, props.clone(), theirs_list.clone());
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
        assert_eq!(json!("s").into_serde(), serde_json::json!("s"));
        assert_eq!(json!([]).into_serde(), serde_json::json!([]));
        assert_eq!(json!({}).into_serde(), serde_json::json!({}));
    }

    /// `insert` and `remove` keep serde_json's order (`preserve_order`): a key inserted again
    /// keeps its place, a removed key's place goes to the last entry.
    #[test]
    fn map_order_is_serde_jsons() {
        let mut ours = Map::new();
        let mut theirs = serde_json::Map::new();
        for (k, v) in [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("b", 5), ("e", 6)] {
            ours.insert(k.into(), Value::from(&serde_json::json!(v)));
            theirs.insert(k.into(), serde_json::json!(v));
        }
        for k in ["b", "zz", "a"] {
            assert_eq!(
                ours.remove(k).map(Value::into_serde),
                theirs.remove(k),
                "{k}"
            );
        }
        assert_eq!(
            Value::Object(ours).into_serde().to_string(),
            serde_json::Value::Object(theirs).to_string()
        );
    }
}
