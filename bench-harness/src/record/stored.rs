//! Enums stored in the JSON as a name: one macro writes both directions, so reading an unknown
//! name is a typed error that says what was looked for, never a panic or a silent default.

/// `stored_by_name!(Type, key, all, "what")`: `Type` serialises as `key(self)` and deserialises
/// (through `#[serde(try_from = "String", into = "String")]` on `Type`) by finding the one of
/// `all` (an expression listing every value) with that key; any other name is the error
/// `no {what} is called "{name}"`.
macro_rules! stored_by_name {
    ($ty:ty, $key:ident, $all:expr, $what:literal) => {
        impl From<$ty> for String {
            fn from(v: $ty) -> String {
                v.$key().into()
            }
        }

        impl TryFrom<String> for $ty {
            type Error = String;

            fn try_from(name: String) -> Result<Self, String> {
                $all.into_iter()
                    .find(|v| v.$key() == name)
                    .ok_or_else(|| format!(concat!("no ", $what, " is called {:?}"), name))
            }
        }
    };
}

pub(crate) use stored_by_name;
