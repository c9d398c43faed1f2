//! A hook call read from its JSON: an object whose `hook` names the [`Call`] variant and whose
//! other fields are the variant's, wherever `hook` stands among them.
//!
//! What `#[serde(tag = "hook")]` reads, without its cost: serde reads an internally tagged enum
//! by buffering the whole object into its private `Content` tree and then reading each
//! variant's fields again from that tree, code generated once per variant type (4.4 KB of the
//! lean wasm, gzipped). Here the object is read twice from its bytes instead: once for the tag
//! (every other value skipped, the JSON checked whole), then once as the variant the tag
//! names, through an enum access that hands serde's derived, externally tagged reader of
//! [`Call`] the tag as the variant and the same object as its fields (the `hook` field is
//! then an unknown field, skipped like any other). The same errors as serde's: not an
//! object, `hook` missing or twice, an unknown hook, a variant's field missing or of the
//! wrong type. One difference: serde also took an array `["hook", fields…]` as a call; a call
//! is an object (no host sends anything else).

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess,
    VariantAccess, Visitor,
};
use std::marker::PhantomData;

use serde_json::{Error, Value};

/// The tag's field.
const TAG: &str = "hook";

/// Read `T` (an enum, its derived reader externally tagged, `name` its name) from an object
/// whose `hook` names the variant.
pub fn tagged<'de, T: Deserialize<'de>>(bytes: &'de [u8], name: &'static str) -> Result<T, Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let tag = de.deserialize_map(TagVisitor::<T>(name, PhantomData))?;
    de.end()?;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let t = T::deserialize(Variant {
        tag,
        de: Some(&mut de),
    })?;
    de.end()?;
    Ok(t)
}

/// The first pass: the value of `hook`, checked as it is read (a name of one of `T`'s
/// variants), as serde checks it.
struct TagVisitor<T>(&'static str, PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for TagVisitor<T> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "internally tagged enum {}", self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut tag = None;
        while let Some(is_tag) = map.next_key_seed(IsTag)? {
            if !is_tag {
                map.next_value::<IgnoredAny>()?;
            } else if tag.is_some() {
                return Err(de::Error::duplicate_field(TAG));
            } else {
                // a name, as serde reads a variant's (no other value is read), then checked
                let v = Value::String(map.next_value_seed(Name)?);
                Variant::check::<T>(&v).map_err(de::Error::custom)?;
                tag = Some(v);
            }
        }
        tag.ok_or_else(|| de::Error::missing_field(TAG))
    }
}

/// The tag's value: a string, as serde reads a variant's name from JSON.
struct Name;

impl<'de> DeserializeSeed<'de> for Name {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = String;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }
}

/// A key: whether it is the tag's.
struct IsTag;

impl<'de> DeserializeSeed<'de> for IsTag {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for IsTag {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(v == TAG)
    }
}

/// The second pass: the enum's derived reader asks for an enum; it gets the tag as the
/// variant and the call's object as the variant's fields. Without the object (`de`: `None`),
/// a probe of the tag alone ([`Variant::check`]).
struct Variant<'a, 'de> {
    /// The tag's value, read as the variant's name (serde's error if it is not one).
    tag: Value,
    de: Option<&'a mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>>,
}

/// The probe's stop once the tag is read as a variant's name (not an error serde could give).
const NAMED: &str = "\u{0}named";

impl<'a, 'de> Variant<'a, 'de> {
    /// Whether `tag` names one of `T`'s variants: serde's error if not.
    fn check<'t, T: Deserialize<'t>>(tag: &Value) -> Result<(), Error> {
        let probe = Variant {
            tag: tag.clone(),
            de: None,
        };
        match T::deserialize(probe) {
            Err(e) if e.to_string() != NAMED => Err(e),
            _ => Ok(()),
        }
    }

    /// The call's object (a probe never gets this far: it stops at the variant's name).
    fn object(
        self,
    ) -> Result<&'a mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>, Error> {
        self.de.ok_or_else(|| de::Error::custom(NAMED))
    }
}

impl<'de, 'a> Deserializer<'de> for Variant<'a, 'de> {
    type Error = Error;

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::custom("a hook call is read as an enum"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(mut self, seed: V) -> Result<(V::Value, Self), Error> {
        let v = seed.deserialize(std::mem::take(&mut self.tag))?;
        if self.de.is_none() {
            return Err(de::Error::custom(NAMED));
        }
        Ok((v, self))
    }
}

impl<'de, 'a> VariantAccess<'de> for Variant<'a, 'de> {
    type Error = Error;

    /// A hook with no fields: the object's other fields are ignored (the first pass read the
    /// object whole).
    fn unit_variant(self) -> Result<(), Error> {
        IgnoredAny::deserialize(self.object()?).map(|_| ())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self.object()?)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.object()?.deserialize_struct("", fields, visitor)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::custom("no hook call is a tuple"))
    }
}

#[cfg(test)]
#[path = "call_read_tests.rs"]
mod tests;
