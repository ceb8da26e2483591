//! Any `Serialize` value (the plan) into the compact tree of [`super::value`]: what
//! `serde_json::to_value` makes of it, without serde_json's `preserve_order` map (issue 41).
//!
//! The Bicep templates read the plan as a JSON value of ~100 KB per spec. Built by
//! `serde_json::to_value`, every object of it is an `IndexMap` whose keys are hashed with
//! SipHash on insert and whose field names are copied into fresh `String`s: at platform scale
//! that was the largest part of the 14 % of a render's CPU time spent in SipHash and IndexMap.
//! Here an object is a vector of `(key, value)` pairs and the field names of structs (which
//! serde gives as `&'static str`) are borrowed.
//!
//! The semantics are serde_json's value serializer's (`serde_json::value::Serializer`, 1.0):
//! integers as `u64` when they fit and `i64` otherwise, floats through `Number::from_f64`
//! (`null` when not finite), unit and `None` as `null`, unit variants as their name, newtype,
//! tuple and struct variants as `{variant: …}`, bytes as an array of numbers, a key inserted
//! twice keeps its first place with the last value. Map keys are strings, integers, booleans,
//! chars or unit variants, as serde_json's map-key serializer reads them; float keys (which the
//! plan does not have) are refused rather than formatted differently.

use std::borrow::Cow;
use std::fmt::Display;

use serde::ser::{self, Impossible, Serialize};
use serde_json::{Error, Number};

use super::value::{Map, Str, Value};

/// `v` as a [`Value`], as `serde_json::to_value(v)` would build it.
pub fn to_tree<T: Serialize + ?Sized>(v: &T) -> Result<Value, Error> {
    v.serialize(Serializer)
}

fn error(msg: &str) -> Error {
    <Error as ser::Error>::custom(msg)
}

struct Serializer;

/// The integers of up to 64 bits as numbers, each widened to `i64` or `u64` as serde_json widens
/// them.
macro_rules! integer_values {
    ($($name:ident: $t:ty => $wide:ty),* $(,)?) => {
        $(fn $name(self, v: $t) -> Result<Value, Error> {
            Ok(Value::Number(Number::from(<$wide>::from(v))))
        })*
    };
}

impl ser::Serializer for Serializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Variant<Seq>;
    type SerializeMap = Object;
    type SerializeStruct = Object;
    type SerializeStructVariant = Variant<Object>;

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        Ok(Value::Bool(v))
    }
    integer_values! {
        serialize_i8: i8 => i64,
        serialize_i16: i16 => i64,
        serialize_i32: i32 => i64,
        serialize_i64: i64 => i64,
        serialize_u8: u8 => u64,
        serialize_u16: u16 => u64,
        serialize_u32: u32 => u64,
        serialize_u64: u64 => u64,
    }
    fn serialize_i128(self, v: i128) -> Result<Value, Error> {
        if let Ok(u) = u64::try_from(v) {
            Ok(Value::Number(Number::from(u)))
        } else if let Ok(i) = i64::try_from(v) {
            Ok(Value::Number(Number::from(i)))
        } else {
            Err(error("number out of range"))
        }
    }
    fn serialize_u128(self, v: u128) -> Result<Value, Error> {
        match u64::try_from(v) {
            Ok(u) => Ok(Value::Number(Number::from(u))),
            Err(_) => Err(error("number out of range")),
        }
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        // serde_json's `Value::from(f32)`: the f32 widened, `null` when not finite
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        Ok(Value::String(Cow::Owned(v.to_string())))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        Ok(Value::String(Cow::Owned(v.to_owned())))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Error> {
        Ok(Value::Array(
            v.iter().map(|&b| Value::Number(b.into())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Value, Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value, Error> {
        Ok(Value::String(Cow::Borrowed(variant)))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Value, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Value, Error> {
        let mut m = Map::new();
        m.push(variant, to_tree(v)?);
        Ok(Value::Object(m))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Seq>, Error> {
        Ok(Variant(variant, self.serialize_seq(Some(len))?))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Object, Error> {
        Ok(Object {
            map: Map::with_capacity(len.unwrap_or(0)),
            next_key: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Object, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<Object>, Error> {
        Ok(Variant(variant, self.serialize_map(None)?))
    }
    fn collect_str<T: Display + ?Sized>(self, v: &T) -> Result<Value, Error> {
        Ok(Value::String(Cow::Owned(v.to_string())))
    }
}

struct Seq(Vec<Value>);

impl ser::SerializeSeq for Seq {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.0.push(to_tree(v)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(Value::Array(self.0))
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

struct Object {
    map: Map,
    next_key: Option<Str>,
}

impl ser::SerializeMap for Object {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.next_key = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let key = self
            .next_key
            .take()
            .expect("serialize_value called before serialize_key");
        self.map.insert(key, to_tree(v)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(Value::Object(self.map))
    }
}

impl ser::SerializeStruct for Object {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.map.insert(Cow::Borrowed(key), to_tree(v)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(Value::Object(self.map))
    }
}

/// A tuple or struct variant: `{variant: [...]}` / `{variant: {...}}`.
struct Variant<T>(&'static str, T);

impl ser::SerializeTupleVariant for Variant<Seq> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(&mut self.1, v)
    }
    fn end(self) -> Result<Value, Error> {
        let mut m = Map::new();
        m.push(self.0, Value::Array(self.1.0));
        Ok(Value::Object(m))
    }
}

impl ser::SerializeStructVariant for Variant<Object> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, v)
    }
    fn end(self) -> Result<Value, Error> {
        let mut m = Map::new();
        m.push(self.0, Value::Object(self.1.map));
        Ok(Value::Object(m))
    }
}

/// A map key, as serde_json's map-key serializer reads it.
struct KeySerializer;

fn key_must_be_a_string() -> Error {
    error("key must be a string")
}

/// `serialize_<int>` methods of [`KeySerializer`]: the integer's decimal text.
macro_rules! integer_keys {
    ($($name:ident: $t:ty),* $(,)?) => {
        $(fn $name(self, v: $t) -> Result<Str, Error> {
            Ok(Cow::Owned(v.to_string()))
        })*
    };
}

impl ser::Serializer for KeySerializer {
    type Ok = Str;
    type Error = Error;
    type SerializeSeq = Impossible<Str, Error>;
    type SerializeTuple = Impossible<Str, Error>;
    type SerializeTupleStruct = Impossible<Str, Error>;
    type SerializeTupleVariant = Impossible<Str, Error>;
    type SerializeMap = Impossible<Str, Error>;
    type SerializeStruct = Impossible<Str, Error>;
    type SerializeStructVariant = Impossible<Str, Error>;

    fn serialize_bool(self, v: bool) -> Result<Str, Error> {
        Ok(Cow::Borrowed(if v { "true" } else { "false" }))
    }
    // an integer key is its decimal text, as serde_json's `MapKeySerializer` writes it
    integer_keys!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128,
    );
    fn serialize_f32(self, _: f32) -> Result<Str, Error> {
        Err(error(
            "float map keys are not supported in the template context",
        ))
    }
    fn serialize_f64(self, _: f64) -> Result<Str, Error> {
        Err(error(
            "float map keys are not supported in the template context",
        ))
    }
    fn serialize_char(self, v: char) -> Result<Str, Error> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Str, Error> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Str, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<Str, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Str, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<Str, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Str, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Str, Error> {
        Ok(Cow::Borrowed(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Str, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Str, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
    fn collect_str<T: Display + ?Sized>(self, v: &T) -> Result<Str, Error> {
        Ok(Cow::Owned(v.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, HashMap};

    #[derive(serde::Serialize)]
    enum E {
        Unit,
        New(u8),
        Tuple(i32, String),
        Struct { a: bool, b: Option<f64> },
    }

    #[derive(serde::Serialize)]
    struct Inner {
        x: &'static str,
        #[serde(rename = "y-z")]
        y: Vec<u16>,
    }

    #[derive(serde::Serialize)]
    struct Outer {
        #[serde(flatten)]
        inner: Inner,
        x: i64,
        small: (i8, i16, i32, u8, u16, u32, u64),
        nan: f64,
        f: f32,
        big: u128,
        neg: i128,
        c: char,
        unit: (),
        none: Option<u8>,
        #[serde(with = "serde_bytes_like")]
        bytes: Vec<u8>,
        enums: Vec<E>,
        by_name: BTreeMap<String, E>,
        by_number: BTreeMap<i32, bool>,
        by_bool: HashMap<bool, u8>,
        by_variant: BTreeMap<K, u8>,
        json: serde_json::Value,
    }

    #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum K {
        First,
        Second,
    }

    mod serde_bytes_like {
        pub fn serialize<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(b)
        }
    }

    /// The same tree, in the same order, as `serde_json::to_value` for every kind of value
    /// serde has (and a key given twice by `flatten`).
    #[test]
    fn builds_what_serde_json_to_value_builds() {
        let v = Outer {
            inner: Inner {
                x: "flattened, then replaced",
                y: vec![1, 2],
            },
            x: -3,
            small: (
                i8::MIN,
                i16::MIN,
                i32::MIN,
                u8::MAX,
                u16::MAX,
                u32::MAX,
                u64::MAX,
            ),
            nan: f64::NAN,
            f: 0.1,
            big: u128::from(u64::MAX),
            neg: -5,
            c: 'é',
            unit: (),
            none: None,
            bytes: vec![0, 255],
            enums: vec![
                E::Unit,
                E::New(7),
                E::Tuple(-1, "t".into()),
                E::Struct { a: true, b: None },
                E::Struct {
                    a: false,
                    b: Some(2.5),
                },
            ],
            by_name: [("b".to_string(), E::Unit), ("a".to_string(), E::New(1))].into(),
            by_number: [(-2, true), (10, false)].into(),
            by_bool: [(true, 1)].into(),
            by_variant: [(K::Second, 2), (K::First, 1)].into(),
            json: serde_json::json!({ "z": [1, "two", null], "a": { "b": 0.5 } }),
        };
        let theirs = serde_json::to_value(&v).unwrap();
        let ours = to_tree(&v).unwrap();
        // the derived comparison of the tree is in order: the order is serde_json's too
        assert_eq!(ours, Value::from(&theirs));
        assert_eq!(ours.into_serde().to_string(), theirs.to_string());
    }

    #[test]
    fn out_of_range_numbers_and_bad_keys_are_errors_as_in_serde_json() {
        assert!(to_tree(&u128::MAX).is_err() && serde_json::to_value(u128::MAX).is_err());
        assert!(to_tree(&i128::MIN).is_err() && serde_json::to_value(i128::MIN).is_err());
        let bad: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(to_tree(&bad).is_err() && serde_json::to_value(&bad).is_err());
    }
}
