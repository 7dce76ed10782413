//! One filter of any variant, as the `build`, `query` and `info` commands handle it: built from a
//! variant name, saved to and loaded from the checksummed file format.

use crate::plan::Variant;
use anyhow::{bail, Context, Result};
use filterlab::{
    format, math, BlockedBloom, ClassicBloom, CountingBloom, CuckooFilter, Filter, FormatError,
    Growable, Hash128, Persist, ScalableBloom,
};
use serde::Serialize;
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
    /// The checksum stored in the file (XXH3-64), verified on load.
    pub checksum: String,
    /// Variant parameters, as `name=value` pairs.
    pub parameters: Vec<(String, String)>,
}

impl AnyFilter {
    /// An empty filter of `variant` for `n` items at rate `p`.
    ///
    /// # Errors
    /// The builder's error (bad parameters, a size that cannot be allocated).
    pub fn build(variant: Variant, n: u64, p: f64) -> filterlab::Result<Self> {
        Ok(match variant {
            Variant::Classic => Self::Classic(ClassicBloom::builder().capacity(n).fpr(p).build()?),
            Variant::Counting => {
                Self::Counting(CountingBloom::builder().capacity(n).fpr(p).build()?)
            }
            Variant::Scalable => {
                Self::Scalable(ScalableBloom::builder().capacity(n).fpr(p).build()?)
            }
            Variant::Cuckoo => Self::Cuckoo(CuckooFilter::builder().capacity(n).fpr(p).build()?),
            Variant::Blocked => Self::Blocked(BlockedBloom::builder().capacity(n).fpr(p).build()?),
        })
    }

    /// Loads a filter saved by [`AnyFilter::to_bytes`], whatever its variant.
    ///
    /// # Errors
    /// The format errors: truncated, corrupted, unknown variant, newer version.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        Ok(match format::peek_variant(bytes)? {
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
    pub fn to_bytes(&self) -> Vec<u8> {
        each!(self, f => f.to_bytes())
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
            bytes: each!(self, f => f.size_in_bytes() as u64),
            file_bytes: file.len() as u64,
            expected_fpr: self.expected_fpr(),
            hash: hasher.kind().name().into(),
            seed: hasher.seed(),
            checksum: format!("{:016x} (verified)", u64::from_le_bytes(tail)),
            parameters: self.parameters(),
        }
    }

    fn parameters(&self) -> Vec<(String, String)> {
        let kv = |k: &str, v: String| (k.to_string(), v);
        match self {
            Self::Classic(f) => vec![
                kv("m", f.bits().to_string()),
                kv("k", f.hashes().to_string()),
                kv("target_fpr", math::format_real(f.target_fpr())),
                kv("fill_ratio", format!("{:.4}", f.fill_ratio())),
            ],
            Self::Counting(f) => vec![
                kv("counters", f.counters().to_string()),
                kv("k", f.hashes().to_string()),
                kv("saturated", f.saturated().to_string()),
                kv(
                    "overflow_bound",
                    format!("{:.3e}", f.overflow_probability()),
                ),
            ],
            Self::Scalable(f) => vec![
                kv("stages", f.stages().to_string()),
                kv("growth", f.growth().to_string()),
                kv("tightening", f.tightening().to_string()),
                kv("p0", math::format_real(f.initial_fpr())),
                kv("bound", math::format_real(f.fpr_bound())),
            ],
            Self::Cuckoo(f) => vec![
                kv("fingerprint_bits", f.fingerprint_bits().to_string()),
                kv("buckets", f.buckets().to_string()),
                kv("load", format!("{:.4}", f.load_factor())),
            ],
            Self::Blocked(f) => vec![kv("blocks", f.blocks().to_string())],
        }
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
