//! What a generated module writes in place of serde's derives: one macro invocation per type,
//! after the types and the client, so that a type reads as its fields and the wire code stays out
//! of the way. The macros expand to calls of the readers and writers the runtime holds once for
//! every type, the loops and the errors, reached through `__codegen`: a struct's in
//! `decode/record.rs`, an enum's in `decode/enums.rs`, a union's in `decode/union.rs` (and
//! `wire/tag_first.rs`, the tag a union writes for an alternative that has no field for it), a
//! constant's in `wire/constant.rs`.
//!
//! A macro's input is not parsed as Rust by the generator's formatter, which is most of what
//! generating a large client costs; rustc expands it in a fraction of what checking the code costs.

/// A struct's `Serialize`, `Deserialize` and [`Record`](super::record::Record): each field as
/// `[POSITION] MODE name: Type = "wire"`, its position counted from 0, where `required` is written always and must come, `optional` is
/// left out when absent and reads as absent when missing, and `nullable` is written always (as
/// `null` when `None`) and reads as `None` when missing; then `additional_properties: V` for a
/// struct that keeps the keys it does not declare, or `flatten: field: Union` for a struct one of
/// whose `all_of:` parts is a union: the keys its fields do not take are that union's value.
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_struct {
    (
        $name:ident $(<$($param:ident),+>)? {
            $([$index:literal] $mode:ident $field:ident: $ty:ty = $wire:literal),* $(,)?
        }
        $(additional_properties: $others:ty)?
    ) => {
        impl$(<$($param: $crate::serde::Serialize),+>)? $crate::serde::Serialize
            for $name$(<$($param),+>)?
        {
            fn serialize<S: $crate::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::__serde_struct!(@write self, serializer, stringify!($name),
                    [$(($wire, $crate::__serde_struct!(@out $mode &self.$field))),*]
                    $($others)?)
            }
        }

        impl<'de $($(, $param: $crate::serde::Deserialize<'de>)+)?> $crate::serde::Deserialize<'de>
            for $name$(<$($param),+>)?
        {
            fn deserialize<D: $crate::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::__codegen::record::read(deserializer)
            }
        }

        const _: () = {
            // The fields read so far, by name; the name cannot be a generated type's.
            pub struct __Slots$(<$($param),+>)? {
                $($field: ::core::option::Option<$ty>,)*
                $(additional_properties: ::std::collections::BTreeMap<::std::string::String, $others>,)?
            }

            impl<'de $($(, $param: $crate::serde::Deserialize<'de>)+)?>
                $crate::__codegen::record::Record<'de> for $name$(<$($param),+>)?
            {
                type Slots = __Slots$(<$($param),+>)?;
                const NAME: &'static str = stringify!($name);
                const FIELDS: &'static [&'static str] = &[$($wire),*];
                const KEEPS_OTHERS: bool = $crate::__serde_struct!(@keeps $($others)?);

                fn slots() -> Self::Slots {
                    __Slots {
                        $($field: ::core::option::Option::None,)*
                        $(additional_properties: $crate::__serde_struct!(@no_others $others),)?
                    }
                }

                fn read<A: $crate::serde::de::MapAccess<'de>>(
                    slots: &mut Self::Slots,
                    index: usize,
                    map: &mut A,
                ) -> ::core::result::Result<bool, A::Error> {
                    $crate::__serde_struct!(@read slots, index, map, [$($index $field),*])
                }

                $(
                fn read_other<A: $crate::serde::de::MapAccess<'de>>(
                    slots: &mut Self::Slots,
                    key: ::std::string::String,
                    map: &mut A,
                ) -> ::core::result::Result<(), A::Error> {
                    let _: ::core::marker::PhantomData<$others>;
                    $crate::__codegen::record::other(&mut slots.additional_properties, key, map)
                }
                )?

                #[allow(unused_variables)]
                fn finish(
                    slots: Self::Slots,
                ) -> ::core::result::Result<Self, $crate::__codegen::record::Unfinished> {
                    ::core::result::Result::Ok(Self {
                        $($field: $crate::__serde_struct!(@in $mode slots.$field, $wire),)*
                        $(additional_properties: $crate::__serde_struct!(
                            @others slots.additional_properties, $others),)?
                    })
                }
            }
        };
    };
    (
        $name:ident {
            $([$index:literal] $mode:ident $field:ident: $ty:ty = $wire:literal),* $(,)?
        }
        flatten: $flat:ident: $flat_ty:ty
    ) => {
        impl $crate::serde::Serialize for $name {
            fn serialize<S: $crate::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::__codegen::record::write_flattened(
                    serializer,
                    stringify!($name),
                    &[$(($wire, $crate::__serde_struct!(@out $mode &self.$field))),*],
                    &self.$flat,
                )
            }
        }

        impl<'de> $crate::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::__codegen::record::read(deserializer)
            }
        }

        const _: () = {
            // The fields read so far, by name, and the keys left for the flattened union.
            pub struct __Slots {
                $($field: ::core::option::Option<$ty>,)*
                $flat: $crate::serde_json::Map<::std::string::String, $crate::serde_json::Value>,
            }

            impl<'de> $crate::__codegen::record::Record<'de> for $name {
                type Slots = __Slots;
                const NAME: &'static str = stringify!($name);
                const FIELDS: &'static [&'static str] = &[$($wire),*];
                const KEEPS_OTHERS: bool = true;

                fn slots() -> Self::Slots {
                    __Slots {
                        $($field: ::core::option::Option::None,)*
                        $flat: $crate::serde_json::Map::new(),
                    }
                }

                fn read<A: $crate::serde::de::MapAccess<'de>>(
                    slots: &mut Self::Slots,
                    index: usize,
                    map: &mut A,
                ) -> ::core::result::Result<bool, A::Error> {
                    $crate::__serde_struct!(@read slots, index, map, [$($index $field),*])
                }

                fn read_other<A: $crate::serde::de::MapAccess<'de>>(
                    slots: &mut Self::Slots,
                    key: ::std::string::String,
                    map: &mut A,
                ) -> ::core::result::Result<(), A::Error> {
                    let value: $crate::serde_json::Value = map.next_value()?;
                    slots.$flat.insert(key, value);
                    ::core::result::Result::Ok(())
                }

                fn finish(
                    slots: Self::Slots,
                ) -> ::core::result::Result<Self, $crate::__codegen::record::Unfinished> {
                    ::core::result::Result::Ok(Self {
                        $($field: $crate::__serde_struct!(@in $mode slots.$field, $wire),)*
                        $flat: $crate::__codegen::record::flattened::<$flat_ty>(slots.$flat)?,
                    })
                }
            }
        };
    };
    (@write $self:ident, $serializer:ident, $name:expr, [$($field:expr),*]) => {
        $crate::__codegen::record::write($serializer, $name, &[$($field),*])
    };
    (@write $self:ident, $serializer:ident, $name:expr, [$($field:expr),*] $others:ty) => {
        $crate::__codegen::record::write_with_others(
            $serializer,
            &[$($field),*],
            &$self.additional_properties,
        )
    };
    (@read $slots:ident, $position:ident, $map:ident, [$($index:literal $field:ident),*]) => {
        match $position {
            $($index => $crate::__codegen::record::slot(&mut $slots.$field, $map),)*
            _ => {
                let _ = ($slots, $map);
                ::core::result::Result::Ok(true)
            }
        }
    };
    (@out required $value:expr) => { ::core::option::Option::Some($value) };
    (@out nullable $value:expr) => { ::core::option::Option::Some($value) };
    (@out optional $value:expr) => { $crate::__codegen::record::Optional::present($value) };
    (@in required $slot:expr, $wire:literal) => {
        match $slot {
            ::core::option::Option::Some(value) => value,
            ::core::option::Option::None => {
                return ::core::result::Result::Err($crate::__codegen::record::Unfinished::Missing($wire))
            }
        }
    };
    (@in nullable $slot:expr, $wire:literal) => { $slot.unwrap_or_default() };
    (@in optional $slot:expr, $wire:literal) => { $slot.unwrap_or_default() };
    (@keeps) => { false };
    (@keeps $others:ty) => { true };
    (@no_others $others:ty) => { ::std::collections::BTreeMap::new() };
    (@others $slot:expr, $others:ty) => { $slot };
}

/// A string enum's `Serialize` and `Deserialize`: `Variant = "wire"` each, then `open: Other`
/// when an unknown value is kept in `Other(String)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_str_enum {
    ($name:ident { $($variant:ident = $wire:literal),* $(,)? } $(open: $other:ident)?) => {
        $crate::__serde_impls! {
            $name,
            serialize(self, serializer) {
                serializer.serialize_str(match self {
                    $(Self::$variant => $wire,)*
                    $(Self::$other(value) => value,)?
                })
            }
            deserialize(deserializer) {
                $crate::__codegen::str_enum(
                    deserializer,
                    stringify!($name),
                    |wire| ::core::option::Option::Some(match wire {
                        $($wire => Self::$variant,)*
                        _ => return ::core::option::Option::None,
                    }),
                    $crate::__serde_str_enum!(@other $($other)?),
                    &[$($wire),*],
                )
            }
        }
    };
    (@other) => { ::core::option::Option::None };
    (@other $other:ident) => { ::core::option::Option::Some(Self::$other) };
}

/// An integer enum's `Serialize` and `Deserialize`: `Variant = 7` each, then `open: Other` when
/// an unknown value is kept in `Other(i64)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_int_enum {
    ($name:ident { $($variant:ident = $wire:literal),* $(,)? } $(open: $other:ident)?) => {
        $crate::__serde_impls! {
            $name,
            serialize(self, serializer) {
                serializer.serialize_i64(match self {
                    $(Self::$variant => $wire,)*
                    $(Self::$other(value) => *value,)?
                })
            }
            deserialize(deserializer) {
                $crate::__codegen::int_enum(
                    deserializer,
                    stringify!($name),
                    &[$(($wire, Self::$variant)),*],
                    $crate::__serde_str_enum!(@other $($other)?),
                )
            }
        }
    };
}

/// A union's `Deserialize` (an untagged one's `Serialize` is serde's untagged derive). Untagged:
/// `Variant(Type) => KIND | KIND requiring ["key"] declaring ["key", "other"] tagged ["type" =
/// "map"]` each, what the alternative can read (the [`Fits`](super::union::Fits) constants, the
/// keys an object needs, every key it declares or value a string enum knows, and the fields
/// that hold one value, which rank the alternatives); tagged (`tag "field"` first), its
/// `Serialize` too: `Variant(Type) = "value" | "other value"` each for an alternative holding
/// its tag in a field, `Variant(Type) writes "value"` for one the union writes the tag of,
/// `Variant() writes "value"` for a plain variant whose object holds its tag alone; adjacently
/// tagged (`tag "field" content "field"`), `Variant(Type) writes "value"` each, the alternative
/// any type, held under the content key. Then `open: Other` when a value no alternative reads is kept in `Other(serde_json::Value)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_union {
    (
        $name:ident {
            $(
                $variant:ident($ty:ty) => $kind:ident $(| $more:ident)*
                    $(requiring [$($key:literal),*])?
                    $(declaring [$($declared:literal),*])?
                    $(tagged [$($tag_field:literal = $tag_value:literal),*])?
            ),* $(,)?
        }
        $(open: $other:ident)?
    ) => {
        $crate::__serde_impls! {
            $name,
            deserialize(deserializer) {
                $crate::__codegen::union::untagged(
                    deserializer,
                    stringify!($name),
                    &[$((
                        stringify!($variant),
                        $crate::__codegen::union::Fits::$kind
                            $(.or($crate::__codegen::union::Fits::$more))*
                            $(.requiring(&[$($key),*]))?
                            $(.declaring(&[$($declared),*]))?
                            $(.tagged(&[$(($tag_field, $tag_value)),*]))?,
                        |value| $crate::__codegen::union::read::<$ty, Self>(value, Self::$variant),
                    )),*],
                    $crate::__serde_str_enum!(@other $($other)?),
                )
            }
        }
    };
    (
        $name:ident tag $tag:literal {
            $($variant:ident $held:tt $how:tt $($value:literal)|+),* $(,)?
        }
        $(open: $other:ident)?
    ) => {
        $crate::__serde_impls! {
            $name,
            serialize(self, serializer) {
                match self {
                    $($crate::__serde_union!(@pattern $name $variant value $held) => $crate::__serde_union!(
                        @write $how serializer, $name, $tag, value $held, $($value)|+
                    ),)*
                    $(Self::$other(value) => $crate::serde::Serialize::serialize(value, serializer),)?
                }
            }
            deserialize(deserializer) {
                $crate::__codegen::union::tagged(
                    deserializer,
                    stringify!($name),
                    $tag,
                    &[$($((
                        $value,
                        $crate::__serde_union!(@read $name $variant $held),
                    ),)+)*],
                    $crate::__serde_str_enum!(@other $($other)?),
                )
            }
        }
    };
    (
        $name:ident tag $tag:literal content $content:literal {
            $($variant:ident($ty:ty) writes $value:literal),* $(,)?
        }
        $(open: $other:ident)?
    ) => {
        $crate::__serde_impls! {
            $name,
            serialize(self, serializer) {
                match self {
                    $(Self::$variant(value) => $crate::__codegen::union::write_adjacent(
                        serializer,
                        ($tag, $content),
                        $value,
                        value,
                    ),)*
                    $(Self::$other(value) => $crate::serde::Serialize::serialize(value, serializer),)?
                }
            }
            deserialize(deserializer) {
                $crate::__codegen::union::adjacent(
                    deserializer,
                    stringify!($name),
                    ($tag, $content),
                    &[$(($value, $crate::__serde_union!(@read $name $variant ($ty))),)*],
                    $crate::__serde_str_enum!(@other $($other)?),
                )
            }
        }
    };
    // An alternative holding a value, and a plain one (tag-only: the tag is all it holds).
    (@pattern $name:ident $variant:ident $value:ident ($ty:ty)) => { $name::$variant($value) };
    (@pattern $name:ident $variant:ident $value:ident ()) => { $name::$variant };
    (@read $name:ident $variant:ident ($ty:ty)) => {
        |value| $crate::__codegen::union::read::<$ty, $name>(value, $name::$variant)
    };
    (@read $name:ident $variant:ident ()) => {
        |value| $crate::__codegen::union::read::<$crate::__codegen::union::TagOnly, $name>(
            value,
            |_| $name::$variant,
        )
    };
    // An alternative that keeps its tag in a field of its own is written as it is.
    (@write = $serializer:ident, $name:ident, $tag:literal, $value:ident ($ty:ty), $($tags:literal)|+) => {
        $crate::serde::Serialize::serialize($value, $serializer)
    };
    // One that does not is written with its one tag value first.
    (@write writes $serializer:ident, $name:ident, $tag:literal, $value:ident ($ty:ty), $one:literal) => {
        $crate::__codegen::union::write_tagged($serializer, stringify!($name), $tag, $one, $value)
    };
    // A plain variant is its tag alone.
    (@write writes $serializer:ident, $name:ident, $tag:literal, $value:ident (), $one:literal) => {
        $crate::__codegen::union::write_tagged(
            $serializer,
            stringify!($name),
            $tag,
            $one,
            &$crate::__codegen::union::TagOnly,
        )
    };
}

/// The `Serialize` and `Deserialize` of a constant field's marker type: `Marker = Str("value")`
/// (or `Int(1)`, `Bool(true)`), the one value it reads and writes.
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_constant {
    ($name:ident = $kind:ident($value:literal)) => {
        $crate::__serde_impls! {
            $name,
            serialize(self, serializer) {
                $crate::serde::Serialize::serialize(
                    &$crate::__codegen::Const::$kind($value),
                    serializer,
                )
            }
            deserialize(deserializer) {
                $crate::__codegen::constant(deserializer, $crate::__codegen::Const::$kind($value))
                    .map(|()| Self)
            }
        }
    };
}

/// The `Serialize` and `Deserialize` impls of a type (or its `Deserialize` alone), around their
/// bodies: what the enum, union and constant macros share.
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_impls {
    (
        $name:ident,
        serialize($self:ident, $serializer:ident) $serialize:block
        deserialize($deserializer:ident) $deserialize:block
    ) => {
        impl $crate::serde::Serialize for $name {
            fn serialize<S: $crate::serde::Serializer>(
                &$self,
                $serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> $serialize
        }

        $crate::__serde_impls!($name, deserialize($deserializer) $deserialize);
    };
    ($name:ident, deserialize($deserializer:ident) $deserialize:block) => {
        impl<'de> $crate::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::serde::Deserializer<'de>>(
                $deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> $deserialize
        }
    };
}
