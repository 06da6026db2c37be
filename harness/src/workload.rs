//! A workload item's command ([`WorkloadInput`]): JSON, as a scenario file gives it, or the
//! algorithm's own typed input, as its workload generator made it (issue 15: "the workload's
//! JSON is re-parsed every run").
//!
//! A campaign generates a scenario and runs it once; most never fail and are never written.
//! Made typed, an input is handed to the engine as it is (a clone), with no JSON built, read
//! four times and freed (about a tenth of a short mutual-exclusion run did that). Its JSON
//! is made the first time something reads it as JSON (a failure file, a comparison, an
//! algorithm reading a field), and is what the input *is*: the run of a typed input and the
//! run of its JSON, read back from a file, must be the same run (a test checks it for every
//! algorithm), and a failing scenario is shrunk and written from its JSON.

use crate::MAX_TIME_MS;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A typed input, type-erased: its JSON on demand, the value for a downcast, and the walk of
/// its time fields.
trait Typed: Send + Sync {
    fn to_json(&self) -> Result<Value, String>;
    fn as_any(&self) -> &dyn Any;
    /// Whether a time field (a number under a key `ms` or ending in `_ms`) is outside
    /// `[0, MAX_TIME_MS]`, as [`crate::scenario`]'s check of the JSON would find.
    fn has_bad_time(&self) -> bool;
}

impl<T: Serialize + Send + Sync + 'static> Typed for T {
    fn to_json(&self) -> Result<Value, String> {
        serde_json::to_value(self).map_err(|e| e.to_string())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn has_bad_time(&self) -> bool {
        self.serialize(TimeWalk { timed: false }).is_err()
    }
}

/// The command of a [`WorkloadItem`](crate::WorkloadItem), in the algorithm's own input
/// format. Read it as JSON through `Deref` (`input["acquire"]["hold_ms"]`), decode it with
/// [`WorkloadInput::decode`]; make one from JSON (`json!({..}).into()`) or from a typed value
/// ([`WorkloadInput::typed`]). It serializes as its JSON.
#[derive(Clone)]
pub struct WorkloadInput {
    /// The JSON: given, or made from `typed` when first read.
    json: OnceLock<Result<Value, String>>,
    /// The typed value it was made from, if it was.
    typed: Option<Arc<dyn Typed>>,
}

impl WorkloadInput {
    /// An input made from a typed value (the node's `Input`): decoded as that type with no
    /// JSON in between; its JSON is `serde_json::to_value(&input)`, made when first read. The
    /// type must come back the same from its JSON (every serde-derived type without a
    /// non-finite float does), since a failure is written, and replayed, as JSON.
    pub fn typed<T: Serialize + Send + Sync + 'static>(input: T) -> WorkloadInput {
        WorkloadInput {
            json: OnceLock::new(),
            typed: Some(Arc::new(input)),
        }
    }

    /// The JSON, or why the typed value it was made from has none (it does not serialize to
    /// JSON: a map with keys that are not strings, say).
    pub fn try_json(&self) -> Result<&Value, &str> {
        self.json
            .get_or_init(|| match &self.typed {
                Some(t) => t.to_json(),
                // (never: an input made from JSON has it set)
                None => Ok(Value::Null),
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The input as a `T`: the typed value itself (cloned) when it was made from a `T`,
    /// otherwise deserialized from its JSON.
    pub fn decode<T: DeserializeOwned + Clone + 'static>(&self) -> Result<T, String> {
        if let Some(t) = self
            .typed
            .as_ref()
            .and_then(|t| t.as_any().downcast_ref::<T>())
        {
            return Ok(t.clone());
        }
        let json = self.try_json()?;
        T::deserialize(json).map_err(|e| e.to_string())
    }

    /// Whether a time field is outside `[0, MAX_TIME_MS]` (see
    /// [`Scenario::validate`](crate::Scenario::validate)), or the input has no JSON: walked
    /// on the typed value when there is one and its JSON has not been made, without making
    /// it (conservatively: a walk that finds one leaves the verdict to the JSON check).
    pub(crate) fn has_bad_time(&self, json_check: impl Fn(&Value) -> bool) -> bool {
        match (&self.typed, self.json.get()) {
            (Some(t), None) => t.has_bad_time(),
            // (no JSON at all: bad, and the caller names why)
            _ => self.try_json().map_or(true, json_check),
        }
    }

    /// Drops the typed value, keeping (making) the JSON: the input as a file gives it back.
    pub fn forget_typed(&mut self) {
        let _ = self.try_json();
        self.typed = None;
    }

    /// Whether it was made from a typed value not yet forgotten.
    pub fn is_typed(&self) -> bool {
        self.typed.is_some()
    }
}

impl From<Value> for WorkloadInput {
    fn from(json: Value) -> WorkloadInput {
        WorkloadInput {
            json: OnceLock::from(Ok(json)),
            typed: None,
        }
    }
}

/// The JSON (see [`WorkloadInput::try_json`]).
///
/// # Panics
///
/// When the input was made from a typed value that does not serialize to JSON.
impl std::ops::Deref for WorkloadInput {
    type Target = Value;
    fn deref(&self) -> &Value {
        match self.try_json() {
            Ok(v) => v,
            Err(e) => panic!("a workload input does not serialize to JSON: {e}"),
        }
    }
}

/// The JSON, to change it in place: the typed value is dropped.
///
/// # Panics
///
/// As `Deref`.
impl std::ops::DerefMut for WorkloadInput {
    fn deref_mut(&mut self) -> &mut Value {
        self.forget_typed();
        match self.json.get_mut() {
            Some(Ok(v)) => v,
            Some(Err(e)) => panic!("a workload input does not serialize to JSON: {e}"),
            None => unreachable!("forget_typed made the JSON"),
        }
    }
}

/// Inputs are equal when their JSON is (what a scenario file holds).
impl PartialEq for WorkloadInput {
    fn eq(&self, other: &WorkloadInput) -> bool {
        self.try_json() == other.try_json()
    }
}

/// The JSON's `Debug`.
impl fmt::Debug for WorkloadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.try_json() {
            Ok(v) => v.fmt(f),
            Err(e) => write!(f, "<an input with no JSON: {e}>"),
        }
    }
}

impl Serialize for WorkloadInput {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.try_json() {
            Ok(v) => v.serialize(s),
            Err(e) => Err(serde::ser::Error::custom(format!(
                "a workload input does not serialize to JSON: {e}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for WorkloadInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WorkloadInput, D::Error> {
        Value::deserialize(d).map(WorkloadInput::from)
    }
}

/// Whether a map key or a field name names a time (as the JSON check reads it).
fn time_key(key: &str) -> bool {
    key == "ms" || key.ends_with("_ms")
}

/// A bad time was found (the walk stops there).
#[derive(Debug)]
struct Bad;

impl fmt::Display for Bad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a time outside its range")
    }
}

impl std::error::Error for Bad {}

impl serde::ser::Error for Bad {
    fn custom<M: fmt::Display>(_: M) -> Bad {
        // A value that fails to serialize is left to its JSON (which fails the same way).
        Bad
    }
}

/// Serializes a value nowhere, checking each number the way the scenario's check reads the
/// JSON of it: under a time key (`timed`), a number outside `[0, MAX_TIME_MS]` is an error.
/// JSON's shapes: a struct's fields and a map's string keys are keys, a variant with data is
/// a one-key object (`{"variant": ..}`), `Some(x)` and a newtype are `x`, a non-finite float
/// is `null` (not a number).
struct TimeWalk {
    timed: bool,
}

impl TimeWalk {
    fn int(&self, v: i128) -> Result<(), Bad> {
        if self.timed && !(0..=i128::from(MAX_TIME_MS)).contains(&v) {
            return Err(Bad);
        }
        Ok(())
    }
    fn float(&self, v: f64) -> Result<(), Bad> {
        if self.timed && v.is_finite() && !(0.0..=MAX_TIME_MS as f64).contains(&v) {
            return Err(Bad);
        }
        Ok(())
    }
}

/// The parts of a compound value: its fields and elements are walked in turn.
struct Parts {
    /// Whether the map value to come sits under a time key.
    value_timed: bool,
}

const UNTIMED: TimeWalk = TimeWalk { timed: false };

impl Serializer for TimeWalk {
    type Ok = ();
    type Error = Bad;
    type SerializeSeq = Parts;
    type SerializeTuple = Parts;
    type SerializeTupleStruct = Parts;
    type SerializeTupleVariant = Parts;
    type SerializeMap = Parts;
    type SerializeStruct = Parts;
    type SerializeStructVariant = Parts;

    fn serialize_bool(self, _: bool) -> Result<(), Bad> {
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Bad> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Bad> {
        self.int(v.into())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Bad> {
        self.int(i128::try_from(v).unwrap_or(i128::MAX))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Bad> {
        self.float(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Bad> {
        self.float(v)
    }
    fn serialize_char(self, _: char) -> Result<(), Bad> {
        Ok(())
    }
    fn serialize_str(self, _: &str) -> Result<(), Bad> {
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Bad> {
        Ok(()) // an array of numbers, under no key
    }
    fn serialize_none(self) -> Result<(), Bad> {
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), Bad> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Bad> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Bad> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Bad> {
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Bad> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Bad> {
        v.serialize(TimeWalk {
            timed: time_key(variant),
        })
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Parts, Bad> {
        Ok(Parts { value_timed: false })
    }
    fn serialize_tuple(self, _: usize) -> Result<Parts, Bad> {
        Ok(Parts { value_timed: false })
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Parts, Bad> {
        Ok(Parts { value_timed: false })
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Parts, Bad> {
        Ok(Parts { value_timed: false })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Parts, Bad> {
        Ok(Parts { value_timed: false })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Parts, Bad> {
        Ok(Parts { value_timed: false })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Parts, Bad> {
        Ok(Parts { value_timed: false })
    }
}

/// The compound parts whose elements sit under no key: a sequence, a tuple, a tuple
/// struct's and a tuple variant's fields.
macro_rules! untimed_parts {
    ($($trait:ident :: $method:ident),*) => {$(
        impl serde::ser::$trait for Parts {
            type Ok = ();
            type Error = Bad;
            fn $method<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Bad> {
                v.serialize(UNTIMED)
            }
            fn end(self) -> Result<(), Bad> {
                Ok(())
            }
        }
    )*};
}

untimed_parts!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl serde::ser::SerializeMap for Parts {
    type Ok = ();
    type Error = Bad;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Bad> {
        // A key JSON has no string for fails the walk: the JSON check then decides.
        self.value_timed = key.serialize(KeyName)?;
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Bad> {
        v.serialize(TimeWalk {
            timed: std::mem::take(&mut self.value_timed),
        })
    }
    fn end(self) -> Result<(), Bad> {
        Ok(())
    }
}

/// A struct's and a struct variant's fields: each under its name.
macro_rules! named_parts {
    ($($trait:ident),*) => {$(
        impl serde::ser::$trait for Parts {
            type Ok = ();
            type Error = Bad;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), Bad> {
                v.serialize(TimeWalk {
                    timed: time_key(key),
                })
            }
            fn end(self) -> Result<(), Bad> {
                Ok(())
            }
        }
    )*};
}

named_parts!(SerializeStruct, SerializeStructVariant);

/// Whether a map key, as JSON writes it (a string), names a time: a string, a unit
/// variant's name or a newtype around either can; a number, a bool or a char never does.
/// Any other key fails (the JSON check, which is exact, then decides).
struct KeyName;

impl Serializer for KeyName {
    type Ok = bool;
    type Error = Bad;
    type SerializeSeq = serde::ser::Impossible<bool, Bad>;
    type SerializeTuple = serde::ser::Impossible<bool, Bad>;
    type SerializeTupleStruct = serde::ser::Impossible<bool, Bad>;
    type SerializeTupleVariant = serde::ser::Impossible<bool, Bad>;
    type SerializeMap = serde::ser::Impossible<bool, Bad>;
    type SerializeStruct = serde::ser::Impossible<bool, Bad>;
    type SerializeStructVariant = serde::ser::Impossible<bool, Bad>;

    fn serialize_str(self, v: &str) -> Result<bool, Bad> {
        Ok(time_key(v))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> Result<bool, Bad> {
        Ok(time_key(v))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<bool, Bad> {
        v.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_i8(self, _: i8) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_i16(self, _: i16) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_i32(self, _: i32) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_i64(self, _: i64) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_u8(self, _: u8) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_u16(self, _: u16) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_u32(self, _: u32) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_u64(self, _: u64) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_f32(self, _: f32) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_f64(self, _: f64) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_char(self, _: char) -> Result<bool, Bad> {
        Ok(false)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<bool, Bad> {
        Err(Bad)
    }
    fn serialize_none(self) -> Result<bool, Bad> {
        Err(Bad)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<bool, Bad> {
        Err(Bad)
    }
    fn serialize_unit(self) -> Result<bool, Bad> {
        Err(Bad)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<bool, Bad> {
        Err(Bad)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<bool, Bad> {
        Err(Bad)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Bad> {
        Err(Bad)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Bad> {
        Err(Bad)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Bad> {
        Err(Bad)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Bad> {
        Err(Bad)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Bad> {
        Err(Bad)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Bad> {
        Err(Bad)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Bad> {
        Err(Bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::bad_time;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Cmd {
        Acquire {
            hold_ms: u64,
        },
        #[serde(rename = "wait_ms")]
        WaitMs(i64),
        Spin(Vec<u64>),
        Maybe {
            after_ms: Option<f64>,
            note: String,
        },
        Nested {
            inner: Box<Cmd>,
            table: BTreeMap<String, i64>,
        },
        Idle,
    }

    /// The walk of the typed value and the check of its JSON agree.
    fn agree(c: &Cmd) -> bool {
        let typed = WorkloadInput::typed(c.clone()).has_bad_time(|_| unreachable!());
        let json = bad_time(&serde_json::to_value(c).unwrap()).is_some();
        assert_eq!(typed, json, "{c:?}");
        typed
    }

    #[test]
    fn the_typed_walk_finds_the_bad_times_the_json_check_finds() {
        let max = MAX_TIME_MS;
        let table = |k: &str, v: i64| BTreeMap::from([(k.to_string(), v)]);
        let cases = [
            (Cmd::Acquire { hold_ms: 5 }, false),
            (Cmd::Acquire { hold_ms: max }, false),
            (Cmd::Acquire { hold_ms: max + 1 }, true),
            (Cmd::WaitMs(-1), true),
            (Cmd::WaitMs(3), false),
            // array elements sit under no key
            (Cmd::Spin(vec![u64::MAX]), false),
            (
                Cmd::Maybe {
                    after_ms: Some(-0.5),
                    note: "x".into(),
                },
                true,
            ),
            (
                Cmd::Maybe {
                    after_ms: Some(1.5),
                    note: "x".into(),
                },
                false,
            ),
            // a non-finite float is JSON's null, not a number
            (
                Cmd::Maybe {
                    after_ms: Some(f64::NAN),
                    note: "x".into(),
                },
                false,
            ),
            (
                Cmd::Maybe {
                    after_ms: None,
                    note: "x".into(),
                },
                false,
            ),
            (
                Cmd::Nested {
                    inner: Box::new(Cmd::Acquire { hold_ms: max + 7 }),
                    table: table("k", 1),
                },
                true,
            ),
            (
                Cmd::Nested {
                    inner: Box::new(Cmd::Idle),
                    table: table("gap_ms", -4),
                },
                true,
            ),
            (
                Cmd::Nested {
                    inner: Box::new(Cmd::Idle),
                    table: table("ms", 4),
                },
                false,
            ),
            (
                Cmd::Nested {
                    inner: Box::new(Cmd::Idle),
                    table: table("gap", -4),
                },
                false,
            ),
            (Cmd::Idle, false),
        ];
        for (c, bad) in cases {
            assert_eq!(agree(&c), bad, "{c:?}");
        }
    }

    #[test]
    fn a_typed_input_decodes_as_itself_and_as_its_json() {
        let c = Cmd::Maybe {
            after_ms: Some(2.25),
            note: "n".into(),
        };
        let typed = WorkloadInput::typed(c.clone());
        assert!(typed.is_typed());
        assert_eq!(typed.decode::<Cmd>().unwrap(), c);
        // another type reads the JSON
        let v: Value = typed.decode().unwrap();
        assert_eq!(v, json!({"maybe": {"after_ms": 2.25, "note": "n"}}));
        let from_json = WorkloadInput::from(v);
        assert!(!from_json.is_typed());
        assert_eq!(from_json.decode::<Cmd>().unwrap(), c);
        assert_eq!(typed, from_json);
        assert_eq!(format!("{typed:?}"), format!("{from_json:?}"));
        assert_eq!(
            serde_json::to_string(&typed).unwrap(),
            serde_json::to_string(&from_json).unwrap()
        );
        assert!(from_json.decode::<u64>().is_err());
    }

    #[test]
    fn changing_the_json_forgets_the_typed_value() {
        let mut input = WorkloadInput::typed(Cmd::Acquire { hold_ms: 1 });
        input["acquire"]["hold_ms"] = json!(9);
        assert!(!input.is_typed());
        assert_eq!(input.decode::<Cmd>().unwrap(), Cmd::Acquire { hold_ms: 9 });
    }

    #[test]
    fn a_typed_input_with_no_json_is_an_error_not_a_panic() {
        // JSON has no object with keys that are pairs
        let input = WorkloadInput::typed(BTreeMap::from([((1u8, 2u8), 3u8)]));
        assert!(input.try_json().is_err());
        assert!(serde_json::to_string(&input).is_err());
        // the walk fails on such a key, so validation asks the JSON, which names the problem
        assert!(input.has_bad_time(|_| false));
        assert_eq!(
            input.decode::<BTreeMap<(u8, u8), u8>>().unwrap(),
            BTreeMap::from([((1, 2), 3)])
        );
    }
}
