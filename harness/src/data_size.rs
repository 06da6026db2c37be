//! The size of a value's data, counted through its `Serialize` without writing anything: what
//! `limits.max_trace_bytes` counts a message at when the trace keeps the message itself, to
//! be rendered when read, instead of its text (issue 15: render lazily).
//!
//! A number counts its width, a text or byte string its length, a sequence or map 8 bytes
//! for its length and then its elements, an enum variant 4 bytes for its tag: about the bytes
//! a compact binary encoding takes, and so about the memory the value holds, its heap
//! included (a `Vec` of a thousand `u32` counts 4,008 bytes where its `size_of` is 24).

use serde::ser::{self, Serialize, Serializer};
use std::fmt;

/// The bytes of `value`'s data (see the [module](self) documentation); `None` when its
/// `Serialize` fails.
pub(crate) fn data_bytes<T: Serialize + ?Sized>(value: &T) -> Option<usize> {
    let mut n = 0;
    value.serialize(Size(&mut n)).ok()?;
    Some(n)
}

/// A serializer that adds to a count.
struct Size<'a>(&'a mut usize);

impl Size<'_> {
    #[inline]
    fn add(self, bytes: usize) -> Result<(), Failed> {
        *self.0 = self.0.saturating_add(bytes);
        Ok(())
    }
}

/// A value's `Serialize` failed: it has no size here.
#[derive(Debug)]
struct Failed;

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the value did not serialize")
    }
}

impl std::error::Error for Failed {}

impl ser::Error for Failed {
    fn custom<T: fmt::Display>(_: T) -> Failed {
        Failed
    }
}

/// Bytes a sequence's or a map's length counts.
const LEN_BYTES: usize = 8;
/// Bytes an enum variant's tag counts.
const TAG_BYTES: usize = 4;

impl<'a> Serializer for Size<'a> {
    type Ok = ();
    type Error = Failed;
    type SerializeSeq = Size<'a>;
    type SerializeTuple = Size<'a>;
    type SerializeTupleStruct = Size<'a>;
    type SerializeTupleVariant = Size<'a>;
    type SerializeMap = Size<'a>;
    type SerializeStruct = Size<'a>;
    type SerializeStructVariant = Size<'a>;

    fn serialize_bool(self, _: bool) -> Result<(), Failed> {
        self.add(1)
    }
    fn serialize_i8(self, _: i8) -> Result<(), Failed> {
        self.add(1)
    }
    fn serialize_i16(self, _: i16) -> Result<(), Failed> {
        self.add(2)
    }
    fn serialize_i32(self, _: i32) -> Result<(), Failed> {
        self.add(4)
    }
    fn serialize_i64(self, _: i64) -> Result<(), Failed> {
        self.add(8)
    }
    fn serialize_i128(self, _: i128) -> Result<(), Failed> {
        self.add(16)
    }
    fn serialize_u8(self, _: u8) -> Result<(), Failed> {
        self.add(1)
    }
    fn serialize_u16(self, _: u16) -> Result<(), Failed> {
        self.add(2)
    }
    fn serialize_u32(self, _: u32) -> Result<(), Failed> {
        self.add(4)
    }
    fn serialize_u64(self, _: u64) -> Result<(), Failed> {
        self.add(8)
    }
    fn serialize_u128(self, _: u128) -> Result<(), Failed> {
        self.add(16)
    }
    fn serialize_f32(self, _: f32) -> Result<(), Failed> {
        self.add(4)
    }
    fn serialize_f64(self, _: f64) -> Result<(), Failed> {
        self.add(8)
    }
    fn serialize_char(self, _: char) -> Result<(), Failed> {
        self.add(4)
    }
    fn serialize_str(self, v: &str) -> Result<(), Failed> {
        self.add(v.len())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Failed> {
        self.add(v.len())
    }
    fn serialize_none(self) -> Result<(), Failed> {
        self.add(1)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), Failed> {
        *self.0 = self.0.saturating_add(1);
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Failed> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Failed> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), Failed> {
        self.add(TAG_BYTES)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Failed> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        v: &T,
    ) -> Result<(), Failed> {
        *self.0 = self.0.saturating_add(TAG_BYTES);
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Size<'a>, Failed> {
        *self.0 = self.0.saturating_add(LEN_BYTES);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Size<'a>, Failed> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Size<'a>, Failed> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Size<'a>, Failed> {
        *self.0 = self.0.saturating_add(TAG_BYTES);
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Size<'a>, Failed> {
        *self.0 = self.0.saturating_add(LEN_BYTES);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Size<'a>, Failed> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Size<'a>, Failed> {
        *self.0 = self.0.saturating_add(TAG_BYTES);
        Ok(self)
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The parts of a compound value, each counted in turn (a struct's field names count
/// nothing).
macro_rules! counted_parts {
    ($($trait:ident :: $method:ident ($($name:ident: $ty:ty)?)),*) => {$(
        impl ser::$trait for Size<'_> {
            type Ok = ();
            type Error = Failed;
            fn $method<T: ?Sized + Serialize>(
                &mut self,
                $($name: $ty,)?
                v: &T,
            ) -> Result<(), Failed> {
                v.serialize(Size(&mut *self.0))
            }
            fn end(self) -> Result<(), Failed> {
                Ok(())
            }
        }
    )*};
}

counted_parts!(
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(_key: &'static str),
    SerializeStructVariant::serialize_field(_key: &'static str)
);

impl ser::SerializeMap for Size<'_> {
    type Ok = ();
    type Error = Failed;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), Failed> {
        k.serialize(Size(&mut *self.0))
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Failed> {
        v.serialize(Size(&mut *self.0))
    }
    fn end(self) -> Result<(), Failed> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Token(u64);

    #[derive(Serialize)]
    enum Msg {
        Ping,
        Hop(u32),
        Req { ts: Vec<u32>, from: String },
        Pair(u8, Option<i16>),
    }

    /// Each shape counts its data: numbers at their width, texts at their length, a
    /// sequence's or map's length and an enum's tag apart; a value that owns a heap buffer
    /// counts it (a stamp of a thousand entries is 4,008 bytes, its `size_of` 24).
    #[test]
    fn a_value_counts_its_data_its_heap_included() {
        assert_eq!(data_bytes(&Token(7)), Some(8));
        assert_eq!(data_bytes(&Msg::Ping), Some(4));
        assert_eq!(data_bytes(&Msg::Hop(3)), Some(4 + 4));
        let req = Msg::Req {
            ts: vec![1; 1000],
            from: "n12".into(),
        };
        assert_eq!(data_bytes(&req), Some(4 + 8 + 4000 + 3));
        assert_eq!(data_bytes(&Msg::Pair(1, None)), Some(4 + 1 + 1));
        assert_eq!(data_bytes(&Msg::Pair(1, Some(-2))), Some(4 + 1 + 1 + 2));
        let map: BTreeMap<String, u64> = [("ab".to_string(), 1), ("c".to_string(), 2)].into();
        assert_eq!(data_bytes(&map), Some(8 + 2 + 8 + 1 + 8));
        assert_eq!(data_bytes(&()), Some(0));
        assert_eq!(data_bytes(&(1u16, 'x', true, 2.5f64)), Some(2 + 4 + 1 + 8));
        assert_eq!(data_bytes("é∑"), Some("é∑".len()));
    }

    /// A `Serialize` that fails gives no size (the caller counts something else).
    #[test]
    fn a_value_that_does_not_serialize_has_no_size() {
        struct Refuses;
        impl Serialize for Refuses {
            fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(ser::Error::custom("no"))
            }
        }
        assert_eq!(data_bytes(&Refuses), None);
        assert_eq!(data_bytes(&vec![Some(Refuses)]), None);
    }
}
