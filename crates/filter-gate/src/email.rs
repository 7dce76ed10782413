//! Key normalisation: the one function applied to an address before the filter and the database
//! alike, so that both see the same key.
//!
//! The default rule is **trim surrounding white space, then lower-case the whole address**. RFC
//! 5321 lets a server treat the local part as case-sensitive, but no large provider does, and a
//! sign-up form that accepts `Ann@x.org` beside `ann@x.org` creates two accounts for one inbox.
//!
//! Provider rules are opt-in ([`Normalizer::gmail_rules`]): Gmail ignores dots in the local part
//! and everything after a `+`, and `googlemail.com` is the same mailbox as `gmail.com`. They are
//! off by default because they are provider-specific and change which addresses count as one.

use std::borrow::Cow;
use std::fmt;

/// The longest address accepted, in bytes (RFC 5321's path limit minus the angle brackets).
pub const MAX_EMAIL_BYTES: usize = 254;

/// Why an address was refused. Nothing is stored for a refused address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmailError {
    /// Nothing but white space.
    Empty,
    /// No `@` in the address.
    NoAt,
    /// An `@` with nothing before or after it.
    EmptyPart,
    /// Longer than [`MAX_EMAIL_BYTES`] once normalised (lower-casing can lengthen an
    /// address: `İ` is 2 bytes, its lower case `i̇` 3).
    TooLong {
        /// Length in bytes after normalisation (or of the raw input, when that alone is over
        /// four times the limit).
        len: usize,
    },
    /// A control character (U+0000..U+001F, U+007F..U+009F) inside the address.
    ControlCharacter {
        /// Byte offset of the character in the trimmed address.
        at: usize,
    },
}

impl fmt::Display for EmailError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "the e-mail address is empty: enter an address"),
            Self::NoAt => write!(f, "the e-mail address has no '@': expected local@domain"),
            Self::EmptyPart => write!(
                f,
                "the e-mail address has nothing before or after '@': expected local@domain"
            ),
            Self::TooLong { len } => write!(
                f,
                "the e-mail address is {len} bytes long: at most {MAX_EMAIL_BYTES} are allowed"
            ),
            Self::ControlCharacter { at } => write!(
                f,
                "the e-mail address has a control character at byte {at}: remove it"
            ),
        }
    }
}

impl std::error::Error for EmailError {}

/// The normalisation rule, applied before the filter and the database alike. RFC 5321 lets the
/// local part be case-sensitive, but no large provider treats it so, and accepting `Ann@x.org`
/// beside `ann@x.org` makes two accounts for one inbox. `Normalizer::default()` is trim and
/// lower case only.
///
/// ```
/// use filter_gate::Normalizer;
/// let n = Normalizer::default();
/// assert_eq!(n.normalize("  Ann.Lee+news@GMail.com ").unwrap(), "ann.lee+news@gmail.com");
/// let g = Normalizer::default().gmail_rules(true);
/// assert_eq!(g.normalize("Ann.Lee+news@googlemail.com").unwrap(), "annlee@gmail.com");
/// assert!(n.normalize("no-at-sign").is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Normalizer {
    gmail: bool,
}

impl Normalizer {
    /// Turns Gmail's rules on or off: dots in the local part and a `+tag` are dropped, and
    /// `googlemail.com` becomes `gmail.com`.
    #[must_use]
    pub fn gmail_rules(mut self, on: bool) -> Self {
        self.gmail = on;
        self
    }

    /// Validates `raw` and returns the key the filter and the database store.
    ///
    /// # Errors
    /// [`EmailError`] for an empty address, one without `@` or with an empty side, one longer
    /// than [`MAX_EMAIL_BYTES`], or one with a control character.
    pub fn normalize(&self, raw: &str) -> Result<String, EmailError> {
        self.normalize_cow(raw).map(Cow::into_owned)
    }

    /// [`Normalizer::normalize`] without allocating when the address is already in normal form
    /// (trimmed, no upper-case letter, and no provider rule applies): the common case on a
    /// sign-up path, where it saves the allocation on every check.
    ///
    /// # Errors
    /// As [`Normalizer::normalize`].
    pub fn normalize_cow<'a>(&self, raw: &'a str) -> Result<Cow<'a, str>, EmailError> {
        let s = self.trimmed(raw)?;
        self.finish(unicode_lower(s))
    }

    /// Trims and validates `raw` (all but the length of the key, which folding can change);
    /// returns the trimmed address, for a folding to make the key of (see [`crate::Folding`]).
    pub(crate) fn trimmed<'a>(&self, raw: &'a str) -> Result<&'a str, EmailError> {
        let s = raw.trim();
        if s.is_empty() {
            return Err(EmailError::Empty);
        }
        // Lower-casing can shorten (the Kelvin sign) as well as lengthen; only an input far
        // over the limit is refused before it is rewritten, to bound the work.
        if s.len() > 4 * MAX_EMAIL_BYTES {
            return Err(EmailError::TooLong { len: s.len() });
        }
        if let Some((at, _)) = s.char_indices().find(|(_, c)| c.is_control()) {
            return Err(EmailError::ControlCharacter { at });
        }
        let Some((local, domain)) = s.rsplit_once('@') else {
            return Err(EmailError::NoAt);
        };
        if local.is_empty() || domain.is_empty() {
            return Err(EmailError::EmptyPart);
        }
        Ok(s)
    }

    /// The key of an address that was trimmed, validated and then lower-cased (`folded`):
    /// the provider rules, then the length limit (which applies to the key that is stored).
    pub(crate) fn finish<'a>(&self, folded: Cow<'a, str>) -> Result<Cow<'a, str>, EmailError> {
        let key = match folded.rsplit_once('@') {
            Some((local, domain))
                if self.gmail && (domain == "gmail.com" || domain == "googlemail.com") =>
            {
                let base = local.split('+').next().unwrap_or_default().replace('.', "");
                if base.is_empty() {
                    return Err(EmailError::EmptyPart);
                }
                Cow::Owned(format!("{base}@gmail.com"))
            }
            Some(_) => folded,
            None => return Err(EmailError::NoAt),
        };
        if key.len() > MAX_EMAIL_BYTES {
            return Err(EmailError::TooLong { len: key.len() });
        }
        Ok(key)
    }
}

/// Unicode's lower case of a validated address (each side of its last `@` apart, which gives
/// the same as the whole: `@` is neither cased nor case-ignorable), borrowed when it is already
/// lower case.
pub(crate) fn unicode_lower(s: &str) -> Cow<'_, str> {
    let lower = if s.is_ascii() {
        !s.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        // Title-case letters and other special cases: only a comparison is exact.
        s.to_lowercase() == s
    };
    if lower {
        return Cow::Borrowed(s);
    }
    match s.rsplit_once('@') {
        Some((local, domain)) => Cow::Owned(format!(
            "{}@{}",
            local.to_lowercase(),
            domain.to_lowercase()
        )),
        None => Cow::Owned(s.to_lowercase()),
    }
}

#[cfg(test)]
mod tests;
