//! Enums chosen by name (the counting method, the search kernel, the output format): each is
//! defined once, by [`named_enum!`], with its variants' names and one-line descriptions, and
//! everything else follows from that definition: the list of variants, parsing, `Display`, the
//! name in JSON, the error that lists the names, and the command line's choices and their help
//! (which the binary builds from [`Named`]).

/// An enum whose variants are chosen by name.
pub trait Named: Copy + 'static {
    /// What a value names, in messages: "method", "kernel", "format".
    const WHAT: &'static str;
    /// Every variant, in the order of the definition.
    fn all() -> &'static [Self];
    /// The variant's name on the command line and in reports and files.
    fn name(self) -> &'static str;
    /// One line that says what the variant is, for help texts.
    fn help(self) -> &'static str;
    /// The variant called `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::all().iter().copied().find(|v| v.name() == name)
    }
    /// The names, sorted, in words: "a, b or c".
    fn names_in_words() -> String {
        let mut names: Vec<&str> = Self::all().iter().map(|v| v.name()).collect();
        names.sort_unstable();
        words(&names)
    }
    /// The variant called `name`, or [`crate::Error::UnknownName`] listing the names.
    fn parse_name(name: &str) -> crate::Result<Self> {
        Self::from_name(name).ok_or_else(|| crate::Error::UnknownName {
            what: Self::WHAT,
            name: name.to_string(),
            expected: Self::names_in_words(),
        })
    }
}

/// `names` in words: "a", "a or b", "a, b or c".
pub(crate) fn words(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Defines an enum of named variants (see the module): `Variant = "name", "help"` for each,
/// with the enum's doc comments and derives before `enum`, and each variant's doc comment before
/// it. Generates the [`Named`] impl, `ALL`, `name()`, `Display` and `Serialize` (as the name);
/// `FromStr` too, unless the enum is declared `enum Name: custom_parse` to write its own.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as $what:literal $(: $custom:ident)? {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, $help:literal; )+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every variant, in the order of the definition.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// Its name on the command line and in reports and files.
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }

        impl $crate::names::Named for $name {
            const WHAT: &'static str = $what;
            fn all() -> &'static [Self] {
                &$name::ALL
            }
            fn name(self) -> &'static str {
                $name::name(self)
            }
            fn help(self) -> &'static str {
                match self {
                    $( $name::$variant => $help, )+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        named_enum!(@from_str $name $($custom)?);
    };
    (@from_str $name:ident) => {
        impl std::str::FromStr for $name {
            type Err = $crate::Error;
            fn from_str(s: &str) -> $crate::Result<Self> {
                <$name as $crate::names::Named>::parse_name(s)
            }
        }
    };
    (@from_str $name:ident custom_parse) => {};
}

pub(crate) use named_enum;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_words() {
        assert_eq!(words(&[]), "");
        assert_eq!(words(&["a"]), "a");
        assert_eq!(words(&["a", "b"]), "a or b");
        assert_eq!(words(&["a", "b", "c"]), "a, b or c");
    }
}
