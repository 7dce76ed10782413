//! One filter of any variant, as the `build`, `query` and `info` commands handle it: built from a
//! variant name, saved to and loaded from the checksummed file format.

use crate::plan::Variant;
use anyhow::{bail, Context, Result};
use filterlab::{
    format, BlockedBloom, ClassicBloom, CountingBloom, CuckooFilter, Deletable, Filter,
    FormatError, Growable, Hash128, KeyHasher, Persist, ScalableBloom,
};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::path::Path;

/// A filter of any variant.
#[derive(Debug)]
pub enum AnyFilter {
    /// Classic.
    Classic(ClassicBloom),
    /// Counting.
    Counting(CountingBloom),
    /// Scalable.
    Scalable(ScalableBloom),
    /// Cuckoo.
    Cuckoo(CuckooFilter),
    /// Blocked.
    Blocked(BlockedBloom),
}

/// Runs `$body` with `$f` bound to the inner filter, whatever its variant.
macro_rules! each {
    ($self:expr, $f:ident => $body:expr) => {
        match $self {
            AnyFilter::Classic($f) => $body,
            AnyFilter::Counting($f) => $body,
            AnyFilter::Scalable($f) => $body,
            AnyFilter::Cuckoo($f) => $body,
            AnyFilter::Blocked($f) => $body,
        }
    };
}

/// What `info` shows about a saved filter.
#[derive(Debug, Serialize)]
pub struct Info {
    /// Variant name.
    pub variant: Variant,
    /// Capacity it was sized for (scalable: of the stages allocated so far).
    pub capacity: u64,
    /// Items inserted.
    pub items: u64,
    /// Bytes of the tables.
    pub bytes: u64,
    /// Bytes of the file.
    pub file_bytes: u64,
    /// The formula's rate at the current load.
    pub expected_fpr: f64,
    /// Hash function and seed.
    pub hash: String,
    /// Seed.
    pub seed: u64,
    /// The checksum stored in the file (XXH3-64, hex).
    pub checksum: String,
    /// Whether the checksum was verified (every file that loads has been).
    pub checksum_verified: bool,
    /// Variant parameters, by name.
    pub parameters: Params,
}

/// A parameter's value: a number in JSON, formatted by its kind in text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A count.
    Int(u64),
    /// A ratio such as a load factor.
    Ratio(f64),
    /// A probability.
    Rate(f64),
}

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Num::Int(v) => s.serialize_u64(v),
            Num::Ratio(v) | Num::Rate(v) => s.serialize_f64(v),
        }
    }
}

/// Named parameters, in display order; a JSON object.
#[derive(Clone, Debug, Default)]
pub struct Params(pub Vec<(&'static str, Num)>);

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl AnyFilter {
    /// An empty filter of `variant` for `n` items at rate `p`, hashing with the default hasher.
    ///
    /// # Errors
    /// The builder's error (bad parameters, a size that cannot be allocated).
    #[cfg(test)]
    pub fn build(variant: Variant, n: u64, p: f64) -> filterlab::Result<Self> {
        Self::build_with(variant, n, p, KeyHasher::default())
    }

    /// An empty filter of `variant` for `n` items at rate `p`, hashing with `h`.
    ///
    /// # Errors
    /// The builder's error (bad parameters, a size that cannot be allocated).
    pub fn build_with(variant: Variant, n: u64, p: f64, h: KeyHasher) -> filterlab::Result<Self> {
        macro_rules! sized {
            ($t:ident) => {
                $t::builder().capacity(n).fpr(p).hasher(h).build()?
            };
        }
        Ok(match variant {
            Variant::Classic => Self::Classic(sized!(ClassicBloom)),
            Variant::Counting => Self::Counting(sized!(CountingBloom)),
            Variant::Scalable => Self::Scalable(sized!(ScalableBloom)),
            Variant::Cuckoo => Self::Cuckoo(sized!(CuckooFilter)),
            Variant::Blocked => Self::Blocked(sized!(BlockedBloom)),
        })
    }

    /// Loads a filter saved by [`AnyFilter::to_bytes`], whatever its variant.
    ///
    /// # Errors
    /// The format errors: truncated, corrupted, unknown variant, newer version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        Ok(match filterlab::Variant::peek(bytes)? {
            filterlab::Variant::Classic => Self::Classic(ClassicBloom::from_bytes(bytes)?),
            filterlab::Variant::Counting => Self::Counting(CountingBloom::from_bytes(bytes)?),
            filterlab::Variant::Scalable => Self::Scalable(ScalableBloom::from_bytes(bytes)?),
            filterlab::Variant::Cuckoo => Self::Cuckoo(CuckooFilter::from_bytes(bytes)?),
            filterlab::Variant::Blocked => Self::Blocked(BlockedBloom::from_bytes(bytes)?),
            // `Variant` is non-exhaustive: a variant added to the format but not to this CLI.
            v => {
                return Err(format::invalid(format!(
                    "{} filters are not supported by this command",
                    v.name()
                )))
            }
        })
    }

    /// Reads and loads a saved filter.
    ///
    /// # Errors
    /// A file that cannot be read, or any format error, with the path in the message.
    pub fn load(path: &Path) -> Result<(Self, Vec<u8>)> {
        // Memory reserved fallibly, and a file that grows or a device that never ends refused.
        let bytes = filterlab::read_fallibly(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match Self::from_bytes(&bytes) {
            Ok(f) => Ok((f, bytes)),
            Err(e) => bail!("{} is not a usable filterlab filter: {e}", path.display()),
        }
    }

    /// The file bytes.
    #[cfg(test)]
    pub fn to_bytes(&self) -> Vec<u8> {
        each!(self, f => f.to_bytes())
    }

    /// Saves the filter with the library's atomic save (a fresh temporary name opened with
    /// `O_EXCL`, synced, renamed over `path`, the directory synced), after checking that
    /// `path` is a regular file or missing.
    ///
    /// # Errors
    /// Anything but a regular file at `path`, or an I/O error (`path` is then untouched).
    pub fn save(&self, path: &Path) -> Result<()> {
        crate::build::check_output(path)?;
        each!(self, f => f.save(path)).with_context(|| format!("cannot save {}", path.display()))
    }

    /// Bytes of the tables.
    pub fn bytes(&self) -> u64 {
        each!(self, f => f.size_in_bytes() as u64)
    }

    /// The hasher.
    pub fn hasher(&self) -> KeyHasher {
        each!(self, f => f.hasher())
    }

    /// Checks that the variant can remove keys.
    ///
    /// # Errors
    /// A variant that cannot.
    pub fn check_deletable(&self) -> Result<()> {
        match self {
            Self::Counting(_) | Self::Cuckoo(_) => Ok(()),
            _ => Err(self.not_deletable()),
        }
    }

    fn not_deletable(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "a {} filter cannot remove keys (only counting and cuckoo filters can); \
             rebuild it from the keys that remain",
            self.variant().name()
        )
    }

    /// Removes a hashed key, on the variants that can.
    ///
    /// # Errors
    /// A variant that cannot remove (outer); the library's refusal of a key it proves absent,
    /// `NotPresent` (inner).
    pub fn remove_hash(&mut self, h: Hash128) -> Result<filterlab::Result<()>> {
        match self {
            Self::Counting(f) => Ok(f.remove_hash(h)),
            Self::Cuckoo(f) => Ok(f.remove_hash(h)),
            _ => Err(self.not_deletable()),
        }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        match self {
            Self::Classic(_) => Variant::Classic,
            Self::Counting(_) => Variant::Counting,
            Self::Scalable(_) => Variant::Scalable,
            Self::Cuckoo(_) => Variant::Cuckoo,
            Self::Blocked(_) => Variant::Blocked,
        }
    }

    /// Hashes a key with the filter's hasher.
    pub fn hash(&self, key: &[u8]) -> Hash128 {
        each!(self, f => f.hasher().hash(key))
    }

    /// Inserts a hashed key.
    ///
    /// # Errors
    /// A full cuckoo table; the filter is then unchanged.
    pub fn insert_hash(&mut self, h: Hash128) -> filterlab::Result<()> {
        each!(self, f => f.insert_hash(h))
    }

    /// Whether a hashed key may be present.
    pub fn contains_hash(&self, h: Hash128) -> bool {
        each!(self, f => f.contains_hash(h))
    }

    /// Whether a key may be present.
    pub fn contains(&self, key: &[u8]) -> bool {
        each!(self, f => f.contains(key))
    }

    /// Items inserted.
    pub fn len(&self) -> u64 {
        each!(self, f => f.len())
    }

    /// Capacity.
    pub fn capacity(&self) -> u64 {
        each!(self, f => f.capacity())
    }

    /// The formula's rate at the current load.
    pub fn expected_fpr(&self) -> f64 {
        each!(self, f => f.expected_fpr())
    }

    /// What `info` shows; `file` are the bytes the filter was loaded from.
    pub fn info(&self, file: &[u8]) -> Info {
        let hasher = each!(self, f => f.hasher());
        let tail: [u8; 8] = file[file.len().saturating_sub(8)..]
            .try_into()
            .unwrap_or_default();
        Info {
            variant: self.variant(),
            capacity: self.capacity(),
            items: self.len(),
            bytes: self.bytes(),
            file_bytes: file.len() as u64,
            expected_fpr: self.expected_fpr(),
            hash: hasher.kind().name().into(),
            seed: hasher.seed(),
            checksum: format!("{:016x}", u64::from_le_bytes(tail)),
            checksum_verified: true,
            parameters: self.parameters(),
        }
    }

    fn parameters(&self) -> Params {
        use Num::{Int, Rate, Ratio};
        Params(match self {
            Self::Classic(f) => vec![
                ("m", Int(f.bits())),
                ("k", Int(f.hashes().into())),
                ("target_fpr", Rate(f.target_fpr())),
                ("fill_ratio", Ratio(f.fill_ratio())),
            ],
            Self::Counting(f) => vec![
                ("counters", Int(f.counters())),
                ("k", Int(f.hashes().into())),
                ("saturated", Int(f.saturated())),
                ("overflow_bound", Rate(f.overflow_probability())),
            ],
            Self::Scalable(f) => vec![
                ("stages", Int(f.stages() as u64)),
                ("growth", Ratio(f.growth())),
                ("tightening", Ratio(f.tightening())),
                ("p0", Rate(f.initial_fpr())),
                ("bound", Rate(f.fpr_bound())),
            ],
            Self::Cuckoo(f) => vec![
                ("fingerprint_bits", Int(f.fingerprint_bits().into())),
                ("buckets", Int(f.buckets())),
                ("load", Ratio(f.load_factor())),
            ],
            Self::Blocked(f) => vec![("blocks", Int(f.blocks()))],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variant_is_read_from_the_header_and_an_unknown_one_refused() {
        for v in Variant::ALL {
            let f = AnyFilter::build(v, 100, 0.01).unwrap();
            let back = AnyFilter::from_bytes(&f.to_bytes()).unwrap();
            assert_eq!(back.variant(), v);
        }
        let mut bytes = AnyFilter::build(Variant::Classic, 100, 0.01)
            .unwrap()
            .to_bytes();
        bytes[10] = 99;
        format::reseal(&mut bytes);
        let e = AnyFilter::from_bytes(&bytes).unwrap_err();
        assert!(e.to_string().contains("unknown variant id 99"), "{e}");
    }
}
