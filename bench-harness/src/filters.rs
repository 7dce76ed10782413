//! The filters under test, as one enum so the timing loops dispatch with a predictable `match`
//! instead of a virtual call.

use filterlab::{
    BlockedBloom, ClassicBloom, CountingBloom, CuckooFilter, Filter, Hash128, HashKind, KeyHasher,
    Result, ScalableBloom,
};

/// Hash seed of the counting filters (every other filter uses seed 0).
pub const COUNTING_SEED: u64 = 1;

/// The one list of variants: each line gives the [`Kind`], the filter type and the report
/// name. It generates [`Kind`], [`Kind::ALL`], [`Kind::name`], [`AnyFilter`] and the
/// [`Filter`] dispatch; adding a variant is one line here plus its arms in [`Kind::build`] and
/// the per-variant formulas below (the compiler lists them).
macro_rules! variants {
    ($($(#[$doc:meta])* $kind:ident($ty:ty) = $name:literal,)*) => {
        /// Which variant.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $($(#[$doc])* $kind,)*
        }

        const KINDS: usize = [$($name),*].len();

        impl Kind {
            /// Every variant, in report order.
            pub const ALL: [Kind; KINDS] = [$(Kind::$kind),*];

            /// The name used in reports (equal to [`Filter::name`]).
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$kind => $name,)*
                }
            }
        }

        /// One filter of any variant.
        #[derive(Clone, Debug)]
        pub enum AnyFilter {
            $($(#[$doc])* $kind($ty),)*
        }

        /// `$body` with `$f` bound to the inner filter, whatever the variant.
        macro_rules! each {
            ($self:expr, $f:ident => $body:expr) => {
                match $self {
                    $(AnyFilter::$kind($f) => $body,)*
                }
            };
        }
    };
}

variants! {
    /// [`ClassicBloom`].
    Classic(ClassicBloom) = "classic",
    /// [`CountingBloom`].
    Counting(CountingBloom) = "counting",
    /// [`ScalableBloom`].
    Scalable(ScalableBloom) = "scalable",
    /// [`CuckooFilter`].
    Cuckoo(CuckooFilter) = "cuckoo",
    /// [`BlockedBloom`] (split-block).
    Blocked(BlockedBloom) = "blocked",
}

impl Kind {
    /// A filter of this kind for `n` items at rate `p`, default hasher.
    ///
    /// # Errors
    /// Invalid parameters.
    pub fn build(self, n: u64, p: f64) -> Result<AnyFilter> {
        Ok(match self {
            Kind::Classic => {
                AnyFilter::Classic(ClassicBloom::builder().capacity(n).fpr(p).build()?)
            }
            // Another seed than the classic filter's: with the same one both would set the
            // same positions and report the very same false positives, which would make the
            // counting row a copy of the classic row instead of an independent measurement.
            Kind::Counting => AnyFilter::Counting(
                CountingBloom::builder()
                    .capacity(n)
                    .fpr(p)
                    .hasher(KeyHasher::new(HashKind::Xxh3_128, COUNTING_SEED)?)
                    .build()?,
            ),
            Kind::Scalable => {
                AnyFilter::Scalable(ScalableBloom::builder().capacity(n).fpr(p).build()?)
            }
            Kind::Cuckoo => AnyFilter::Cuckoo(CuckooFilter::builder().capacity(n).fpr(p).build()?),
            Kind::Blocked => {
                AnyFilter::Blocked(BlockedBloom::builder().capacity(n).fpr(p).build()?)
            }
        })
    }
}

impl AnyFilter {
    /// The exact classic-filter rate where the variant is Bloom-shaped, for the report's
    /// "exact" column (`None` for cuckoo and scalable, whose `expected_fpr` is already their
    /// formula).
    pub fn exact_fpr(&self) -> Option<f64> {
        match self {
            AnyFilter::Classic(f) => {
                filterlab::math::classic_fpr_exact(f.bits(), f.len(), f.hashes())
            }
            AnyFilter::Counting(f) => {
                filterlab::math::classic_fpr_exact(f.counters(), f.len(), f.hashes())
            }
            AnyFilter::Scalable(_) | AnyFilter::Cuckoo(_) | AnyFilter::Blocked(_) => None,
        }
    }

    /// The standard approximation at the realised parameters.
    pub fn approx_fpr(&self) -> f64 {
        use filterlab::math;
        match self {
            AnyFilter::Classic(f) => math::classic_fpr(f.bits(), f.len(), f.hashes()),
            AnyFilter::Counting(f) => math::classic_fpr(f.counters(), f.len(), f.hashes()),
            AnyFilter::Scalable(f) => f.expected_fpr(),
            AnyFilter::Cuckoo(f) => f.expected_fpr(),
            // The 256-bit-block model, shown beside the per-lane formula it underestimates.
            AnyFilter::Blocked(f) => {
                filterlab::math::split_block_fpr_block_model(f.blocks(), f.len())
            }
        }
    }

    /// The realised parameters, typed.
    pub fn shape(&self) -> crate::record::Params {
        use crate::record::Params;
        match self {
            AnyFilter::Classic(f) => Params::Classic {
                m: f.bits(),
                k: f.hashes(),
            },
            AnyFilter::Counting(f) => Params::Counting {
                m: f.counters(),
                k: f.hashes(),
            },
            AnyFilter::Scalable(f) => Params::Scalable {
                stages: f
                    .stage_shapes()
                    .into_iter()
                    .map(|(m, k, _, len)| (m, k, len))
                    .collect(),
            },
            AnyFilter::Cuckoo(f) => Params::Cuckoo {
                buckets: f.buckets(),
                slots: filterlab::cuckoo::SLOTS,
                fp_bits: f.fingerprint_bits(),
            },
            AnyFilter::Blocked(f) => Params::Blocked { blocks: f.blocks() },
        }
    }

    /// A short description of the realised parameters (`m=…, k=…`, `f=…, buckets=…`).
    pub fn params(&self) -> String {
        match self {
            AnyFilter::Classic(f) => format!("m={} k={}", f.bits(), f.hashes()),
            AnyFilter::Counting(f) => format!("m={} counters k={}", f.counters(), f.hashes()),
            AnyFilter::Scalable(f) => format!(
                "stages={} s={} r={}",
                filterlab::Growable::stages(f),
                f.growth(),
                f.tightening()
            ),
            AnyFilter::Cuckoo(f) => format!(
                "f={} buckets={} load={:.4}",
                f.fingerprint_bits(),
                f.buckets(),
                f.load_factor()
            ),
            AnyFilter::Blocked(f) => format!("blocks={} (256-bit, 8 lanes)", f.blocks()),
        }
    }
}

impl Filter for AnyFilter {
    #[inline]
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        each!(self, f => f.insert_hash(hash))
    }
    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        each!(self, f => f.contains_hash(hash))
    }
    #[inline]
    fn hasher(&self) -> KeyHasher {
        each!(self, f => f.hasher())
    }
    #[inline]
    fn insert(&mut self, key: &[u8]) -> Result<()> {
        each!(self, f => f.insert(key))
    }
    #[inline]
    fn contains(&self, key: &[u8]) -> bool {
        each!(self, f => f.contains(key))
    }
    fn len(&self) -> u64 {
        each!(self, f => f.len())
    }
    fn capacity(&self) -> u64 {
        each!(self, f => f.capacity())
    }
    fn size_in_bytes(&self) -> usize {
        each!(self, f => f.size_in_bytes())
    }
    fn huge_page_bytes(&self) -> Option<u64> {
        each!(self, f => f.huge_page_bytes())
    }
    fn expected_fpr(&self) -> f64 {
        each!(self, f => f.expected_fpr())
    }
    fn name(&self) -> &'static str {
        each!(self, f => f.name())
    }
    #[inline]
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()> {
        each!(self, f => f.insert_batch(keys))
    }
    #[inline]
    fn contains_batch(&self, keys: &[&[u8]], out: &mut Vec<bool>) {
        each!(self, f => f.contains_batch(keys, out))
    }
}

#[cfg(test)]
mod tests;
