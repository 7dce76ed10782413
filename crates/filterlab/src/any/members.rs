//! How the registry builds and sizes each variant: its builder fed from [`Params`], its
//! sizing formulas, and the shape of a built filter. One `impl` per variant; the registry's
//! table requires one for every row.

use super::sizing::{self, Detail, Sizing};
use super::{Knob, Parameter, Params, Value};
use crate::{
    cuckoo, expandable, math, quotient, AlephFilter, BlockedBloom, ClassicBloom, CountingBloom,
    CuckooFilter, ExpandableCuckoo, Filter, Growable, QuotientFilter, Result, ScalableBloom,
    StaticFuse16, StaticFuse8, StaticRibbon, VectorQuotient,
};

/// `$ty`'s builder with the capacity, rate and hasher of `$p`.
macro_rules! sized {
    ($ty:ty, $p:expr) => {
        <$ty>::builder()
            .capacity($p.capacity)
            .fpr($p.fpr)
            .hasher($p.hasher)
    };
}

/// Builds from `$b` under `$p`'s memory cap, if any.
macro_rules! capped {
    ($b:expr, $p:expr) => {
        match $p.max_bytes {
            Some(cap) => $b.max_bytes(cap).build(),
            None => $b.build(),
        }
    };
}

/// What the registry needs of a variant's type beyond its traits.
pub(crate) trait Member: Sized {
    /// An empty filter built from `p`.
    fn build(p: &Params) -> Result<Self>;
    /// A filter built from `p` holding `hashes`: inserted in order here; a static variant
    /// (built once from its whole key set) overrides it to build from the set.
    fn build_from_hashes(p: &Params, hashes: &[crate::Hash128]) -> Result<Self>
    where
        Self: Filter,
    {
        let mut f = Self::build(p)?;
        f.insert_hash_batch(hashes)?;
        Ok(f)
    }
    /// What [`Member::build`] would allocate, and the shape, without allocating.
    fn size(p: &Params) -> Result<Sizing>;
    /// The rate this filter was sized for, and its realised shape (bytes, the rate at its
    /// capacity, detail).
    fn shape(&self) -> Result<(f64, Sizing)>;
    /// The filter's own parameters, by name, in display order.
    fn parameters(&self) -> Vec<Parameter>;
}

/// `$b.$field($v)`, or `$b.$method($v)` where the builder's method is named otherwise.
macro_rules! knob_set {
    ($b:ident, $v:ident, $field:ident) => {
        $b.$field($v)
    };
    ($b:ident, $v:ident, $field:ident, $method:ident) => {
        $b.$method($v)
    };
}

/// One growable or fixed-capacity row's [`Member`]: whether its builder takes
/// [`Params::pages`] (`tables: pages,` first), its knobs (each a [`Params`] field fed to the builder
/// method of the same name, or of the name after a colon), its sizing function, its realised
/// `(rate sized for, expected rate, detail)` and its parameters.
macro_rules! member {
    ($ty:ident {
        $(tables: $pages:ident,)?
        knobs: [$($knob:ident => $field:ident $(: $method:ident)?),*],
        size: $size:path,
        shape: |$s:ident| $shape:expr,
        parameters: |$s2:ident| $parameters:expr $(,)?
    }) => {
        impl Member for $ty {
            fn build(p: &Params) -> Result<Self> {
                p.only(&[$(Knob::$knob),*])?;
                #[allow(unused_mut)]
                let mut b = sized!($ty, p);
                $(b = b.$pages(p.$pages);)?
                $(if let Some(v) = p.$field {
                    b = knob_set!(b, v, $field $(, $method)?);
                })*
                capped!(b, p)
            }
            fn size(p: &Params) -> Result<Sizing> {
                $size(p)
            }
            fn shape(&$s) -> Result<(f64, Sizing)> {
                let (target, expected, detail) = $shape;
                Ok((target, ($s.size_in_bytes() as u64, expected, detail)))
            }
            fn parameters(&$s2) -> Vec<Parameter> {
                $parameters
            }
        }
    };
}

member!(ClassicBloom {
    tables: pages,
    knobs: [],
    size: sizing::classic,
    shape: |self| {
        let (m, k, n) = (self.bits(), self.hashes(), self.capacity());
        let expected = math::classic_fpr_best(m, n, k);
        (self.target_fpr(), expected, Detail::Classic { m, k })
    },
    parameters: |self| vec![
        Parameter::design("m", Value::Count(self.bits())),
        Parameter::design("k", Value::Count(self.hashes().into())),
        Parameter::design("target_fpr", Value::Rate(self.target_fpr())),
        Parameter::running("fill_ratio", Value::Ratio(self.fill_ratio())),
        // From the bits set, so duplicate inserts count once (`items` counts every insert).
        Parameter::running(
            "distinct_est",
            Value::Count(self.estimate_distinct().round() as u64)
        ),
        Parameter::running("realised_fpr", Value::Rate(self.realised_fpr())),
    ],
});

member!(CountingBloom {
    tables: pages,
    knobs: [],
    size: sizing::counting,
    shape: |self| {
        let (m, k, n) = (self.counters(), self.hashes(), self.capacity());
        let counter_bits = crate::counting::COUNTER_BITS;
        let overflow_bound = math::counting_overflow_bound(m, n, k, counter_bits);
        let p = math::classic_fpr_best(m, n, k);
        (
            p,
            p,
            Detail::Counting {
                m,
                k,
                counter_bits,
                overflow_bound,
            },
        )
    },
    parameters: |self| vec![
        Parameter::design("counters", Value::Count(self.counters())),
        Parameter::design("k", Value::Count(self.hashes().into())),
        Parameter::running("saturated", Value::Count(self.saturated())),
        Parameter::running("overflow_bound", Value::Rate(self.overflow_probability())),
    ],
});

member!(ScalableBloom {
    tables: pages,
    knobs: [Growth => growth, Tightening => tightening],
    size: sizing::scalable,
    shape: |self| {
        // Stage 0 carries the sizing; the growth table is the plan's.
        let first = self
            .stage_shapes()
            .first()
            .map_or(self.capacity(), |&(_, _, cap, _)| cap);
        let p = Params::new(first, self.fpr_bound())
            .growth(self.growth())
            .tightening(self.tightening());
        let (_, expected, detail) = sizing::scalable(&p)?;
        (self.fpr_bound(), expected, detail)
    },
    parameters: |self| vec![
        Parameter::running("stages", Value::Count(Growable::stages(self) as u64)),
        Parameter::design("growth", Value::Ratio(self.growth())),
        Parameter::design("tightening", Value::Ratio(self.tightening())),
        Parameter::design("p0", Value::Rate(self.initial_fpr())),
        Parameter::design("bound", Value::Rate(self.fpr_bound())),
    ],
});

member!(CuckooFilter {
    tables: pages,
    knobs: [FingerprintBits => fingerprint_bits, MaxKicks => max_kicks, CuckooLayout => cuckoo_layout: layout],
    size: sizing::cuckoo,
    shape: |self| {
        let (f, buckets, slots) = (self.fingerprint_bits(), self.buckets(), cuckoo::SLOTS);
        let load = self.capacity() as f64 / (buckets as f64 * f64::from(slots));
        // The filter's own rate function at its capacity, as `build` and `info` report it.
        let p = cuckoo::layout::fpr_exact(self.layout(), f, buckets, self.capacity());
        let near_window = self.layout().near_window();
        (p, p, Detail::Cuckoo { fingerprint_bits: f, buckets, slots, load, near_window })
    },
    parameters: |self| {
        let mut out = vec![
            Parameter::design("fingerprint_bits", Value::Count(self.fingerprint_bits().into())),
            Parameter::design("buckets", Value::Count(self.buckets())),
            Parameter::running("load", Value::Ratio(self.load_factor())),
        ];
        // Only the near layout says so: a spread filter's parameters read as before layouts.
        if let Some(window) = self.layout().near_window() {
            out.push(Parameter::design("near_window", Value::Count(window.into())));
        }
        out
    },
});

member!(BlockedBloom {
    tables: pages,
    knobs: [],
    size: sizing::blocked,
    shape: |self| {
        let (blocks, n) = (self.blocks(), self.capacity());
        let p = math::split_block_fpr(blocks, n);
        let keys_per_block = n as f64 / blocks as f64;
        (
            p,
            p,
            Detail::Blocked {
                blocks,
                keys_per_block,
            },
        )
    },
    parameters: |self| vec![Parameter::design("blocks", Value::Count(self.blocks()))],
});

member!(QuotientFilter {
    tables: pages,
    knobs: [],
    size: sizing::quotient,
    shape: |self| {
        let (q, r, n) = (self.quotients(), self.remainder_bits(), self.capacity());
        let p = quotient::math::quotient_fpr_exact(q, r, n);
        let (slots, load) = (self.slots(), n as f64 / q as f64);
        (
            p,
            p,
            Detail::Quotient {
                quotients: q,
                remainder_bits: r,
                slots,
                load,
            },
        )
    },
    parameters: |self| vec![
        Parameter::design("quotients", Value::Count(self.quotients())),
        Parameter::design("remainder_bits", Value::Count(self.remainder_bits().into())),
        Parameter::design("slots", Value::Count(self.slots())),
        Parameter::running("resizes", Value::Count(self.resizes().into())),
        Parameter::running("load", Value::Ratio(self.load_factor())),
    ],
});

member!(VectorQuotient {
    tables: pages,
    knobs: [],
    size: sizing::vqf,
    shape: |self| {
        let blocks = self.block_count();
        let load = self.capacity() as f64 / (blocks as f64 * f64::from(crate::vqf::block::SLOTS));
        let expected = sizing::vqf_rate(load);
        let overflow_share = math::vqf::vqf_overflow_share(load);
        (
            self.target_fpr(),
            expected,
            Detail::Vqf {
                blocks,
                load,
                overflow_share,
            },
        )
    },
    parameters: |self| vec![
        Parameter::design("blocks", Value::Count(self.block_count())),
        Parameter::design("target_fpr", Value::Rate(self.target_fpr())),
        Parameter::running("load", Value::Ratio(self.load_factor())),
        Parameter::running("overflow_share", Value::Ratio(self.overflow_share())),
    ],
});

member!(AlephFilter {
    tables: pages,
    knobs: [MaxN => max_n],
    size: sizing::aleph,
    shape: |self| {
        let detail = Detail::Aleph {
            quotients: self.quotients(),
            slot_width: self.slot_width(),
            fingerprint_bits: self.fingerprint_bits(),
            doublings: self.expansions(),
            target: self.target_fpr(),
            planned: self.planned_doublings(),
            bound: Growable::fpr_bound(self),
        };
        (self.target_fpr(), self.fpr_at_capacity(), detail)
    },
    parameters: |self| {
        let mut out = vec![
            Parameter::running("doublings", Value::Count(self.expansions().into())),
            Parameter::running("quotients", Value::Count(self.quotients())),
            Parameter::running("slot_width", Value::Count(self.slot_width().into())),
            Parameter::running("fingerprint_bits", Value::Count(self.fingerprint_bits().into())),
            Parameter::running("void_entries", Value::Count(self.void_entries())),
            Parameter::design("bound", Value::Rate(Growable::fpr_bound(self))),
        ];
        out.extend(self.estimate().map(|n| Parameter::design("max_n", Value::Count(n))));
        out
    },
});

member!(ExpandableCuckoo {
    tables: pages,
    knobs: [MaxKicks => max_kicks],
    size: sizing::expandable,
    shape: |self| {
        let first = self.stage_shapes().first().copied();
        let (buckets, f, cap, _) = first.unwrap_or((0, self.initial_fingerprint_bits(), 0, 0));
        let p = expandable::math::stage_fpr(f, buckets, cap);
        let detail = Detail::Expandable {
            fingerprint_bits: f,
            buckets,
            growth: self.growth(),
            period: self.tightening_period(),
            bound: Growable::fpr_bound(self),
            stages: Vec::new(),
        };
        (p, p, detail)
    },
    parameters: |self| vec![
        Parameter::running("stages", Value::Count(Growable::stages(self) as u64)),
        Parameter::design("f0", Value::Count(self.initial_fingerprint_bits().into())),
        Parameter::design("growth", Value::Count(self.growth().into())),
        Parameter::design("period", Value::Count(self.tightening_period().into())),
        Parameter::design("bound", Value::Rate(Growable::fpr_bound(self))),
    ],
});

/// A static row's checks before building from `hashes`: no knobs, and the filter sized for
/// that key set (by `size`) within `p`'s memory cap.
fn check_static(
    p: &Params,
    hashes: &[crate::Hash128],
    size: impl FnOnce(&Params) -> Result<Sizing>,
) -> Result<()> {
    p.only(&[])?;
    let planned = Params {
        capacity: (hashes.len() as u64).max(1),
        ..*p
    };
    let bytes = size(&planned)?.0;
    match p.max_bytes {
        Some(cap) if bytes > cap => Err(crate::Error::MemoryCap {
            what: "static filter",
            bytes,
            cap,
        }),
        _ => Ok(()),
    }
}

/// The registry's side of a binary fuse filter of `$f`-bit fingerprints: built from the whole
/// key set, refusing a target rate its fingerprints cannot meet.
macro_rules! fuse_member {
    ($ty:ident, $f:ty) => {
        impl Member for $ty {
            fn build(p: &Params) -> Result<Self> {
                Self::build_from_hashes(p, &[])
            }
            fn build_from_hashes(p: &Params, hashes: &[crate::Hash128]) -> Result<Self> {
                check_static(p, hashes, |q| {
                    sizing::fuse(q, <$f as crate::fuse::Fingerprint>::BITS)
                })?;
                crate::fuse::BinaryFuse::<$f>::builder()
                    .hasher(p.hasher)
                    .pages(p.pages)
                    .build_from_hashes(hashes)
                    .map(Self::new)
            }
            fn size(p: &Params) -> Result<Sizing> {
                sizing::fuse(p, <$f as crate::fuse::Fingerprint>::BITS)
            }
            fn shape(&self) -> Result<(f64, Sizing)> {
                let layout = self.get().layout();
                let p = self.expected_fpr();
                let detail = Detail::Fuse {
                    fingerprint_bits: <$f as crate::fuse::Fingerprint>::BITS,
                    slots: layout.array_length.into(),
                    segment_length: layout.segment_length,
                };
                Ok((p, (self.size_in_bytes() as u64, p, detail)))
            }
            fn parameters(&self) -> Vec<Parameter> {
                let layout = self.get().layout();
                vec![
                    Parameter::design(
                        "fingerprint_bits",
                        Value::Count(<$f as crate::fuse::Fingerprint>::BITS.into()),
                    ),
                    Parameter::design("slots", Value::Count(layout.array_length.into())),
                    Parameter::design("segment_length", Value::Count(layout.segment_length.into())),
                ]
            }
        }
    };
}

fuse_member!(StaticFuse8, u8);
fuse_member!(StaticFuse16, u16);

impl Member for StaticRibbon {
    fn build(p: &Params) -> Result<Self> {
        Self::build_from_hashes(p, &[])
    }
    fn build_from_hashes(p: &Params, hashes: &[crate::Hash128]) -> Result<Self> {
        check_static(p, hashes, sizing::ribbon)?;
        crate::Ribbon::builder()
            .fpr(p.fpr)
            .hasher(p.hasher)
            .pages(p.pages)
            .build_from_hashes(hashes)
            .map(Self::new)
    }
    fn size(p: &Params) -> Result<Sizing> {
        sizing::ribbon(p)
    }
    fn shape(&self) -> Result<(f64, Sizing)> {
        let r = self.get();
        let p = self.expected_fpr();
        let detail = Detail::Ribbon {
            result_bits: r.result_bits(),
            slots: r.slots(),
            boundary: r.boundary(),
        };
        Ok((p, (self.size_in_bytes() as u64, p, detail)))
    }
    fn parameters(&self) -> Vec<Parameter> {
        let r = self.get();
        vec![
            Parameter::design("result_bits", Value::Count(r.result_bits().into())),
            Parameter::design("slots", Value::Count(r.slots())),
            Parameter::design("boundary", Value::Count(r.boundary())),
        ]
    }
}
