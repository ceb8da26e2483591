//! `json!` for the ARM emitters: the syntax of serde_json's macro (object and array literals,
//! any expression as a value), but each expression's value is moved into the tree rather than
//! serialised into a new one. `serde_json::json!` calls `serde_json::to_value(&expr)` for every
//! expression it is given, which copies a `Value` (a resource's properties, its tags, its
//! `dependsOn`) node by node: at platform scale those copies were the largest part of building
//! the ARM template (issue 41). The tree is the same; only the copies are gone (the goldens and
//! the test below hold it to serde_json's macro).

use serde_json::{Map, Number, Value};

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

impl Put for Map<String, Value> {
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
        Value::String(self)
    }
}

impl Put for &String {
    fn put(self) -> Value {
        Value::String(self.clone())
    }
}

impl Put for &str {
    fn put(self) -> Value {
        Value::String(self.to_owned())
    }
}

impl Put for &&str {
    fn put(self) -> Value {
        Value::String((*self).to_owned())
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

/// serde_json's `json!` syntax; expressions are moved in ([`Put`]), not copied.
macro_rules! json {
    (null) => {
        ::serde_json::Value::Null
    };
    ({ $($tt:tt)* }) => {{
        #[allow(unused_mut)]
        let mut object = ::serde_json::Map::new();
        $crate::emit::value::json_object!(object; $($tt)*);
        ::serde_json::Value::Object(object)
    }};
    ([ $($tt:tt)* ]) => {{
        #[allow(unused_mut)]
        let mut array = $crate::emit::value::new_array();
        $crate::emit::value::json_array!(array; $($tt)*);
        ::serde_json::Value::Array(array)
    }};
    ($e:expr) => {
        $crate::emit::value::Put::put($e)
    };
}

/// The entries of a `json!` object, inserted into `$m` in order.
macro_rules! json_object {
    ($m:ident;) => {};
    ($m:ident; $k:literal : null $(, $($rest:tt)*)?) => {
        $m.insert(::std::string::String::from($k), ::serde_json::Value::Null);
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
    ($m:ident; $k:literal : { $($v:tt)* } $(, $($rest:tt)*)?) => {
        $m.insert(::std::string::String::from($k), $crate::emit::value::json!({ $($v)* }));
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
    ($m:ident; $k:literal : [ $($v:tt)* ] $(, $($rest:tt)*)?) => {
        $m.insert(::std::string::String::from($k), $crate::emit::value::json!([ $($v)* ]));
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
    ($m:ident; $k:literal : $v:expr $(, $($rest:tt)*)?) => {
        $m.insert(::std::string::String::from($k), $crate::emit::value::Put::put($v));
        $($crate::emit::value::json_object!($m; $($rest)*);)?
    };
}

/// The items of a `json!` array, pushed onto `$a` in order.
macro_rules! json_array {
    ($a:ident;) => {};
    ($a:ident; null $(, $($rest:tt)*)?) => {
        $a.push(::serde_json::Value::Null);
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
    use serde_json::Value;

    /// The same trees as serde_json's macro for every kind of value the emitters give it.
    #[test]
    fn builds_what_serde_json_builds() {
        let props = serde_json::json!({ "a": [1, { "b": "c" }], "d": null });
        let name = String::from("[x]");
        let opt: Option<u32> = None;
        let list: Vec<Value> = vec![Value::from(1), Value::from("two")];
        // one literal, given to both macros
        macro_rules! both {
            ($($t:tt)+) => {
                (json!($($t)+), serde_json::json!($($t)+))
            };
        }
        let (ours, theirs) = both!({
            "type": "Microsoft.X/y",
            "props": props.clone(),
            "ref": &props,
            "name": &name,
            "owned": name.clone(),
            "n": 3u32, "neg": -4i64, "f": 0.5, "nan": f64::NAN, "t": true,
            "none": opt, "some": Some(7u8), "null": null,
            "nested": { "arr": [ { "k": "v" }, [], [1, null, "s"], list.clone() ], "empty": {} },
            "last": "trailing",
        });
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
        assert_eq!(json!("s"), serde_json::json!("s"));
        assert_eq!(json!([]), serde_json::json!([]));
        assert_eq!(json!({}), serde_json::json!({}));
    }
}
