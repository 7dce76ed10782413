//! One growing filter of any contender, behind one set of calls.

use super::Contender;
use anyhow::{anyhow, Result};
use filterlab::{AnyFilter, Capabilities, Error, Filter, Params, QuotientFilter, Variant};
use filterlab_peers::{Peer, PeerKind};

/// A filter of one contender, declared small and grown by inserts.
pub enum Grown {
    /// Ours, through the registry.
    Ours(AnyFilter),
    /// The qfilter crate.
    Qfilter(qfilter::Filter),
    /// growable-bloom-filter, held as the harness's peer.
    Growable(Peer),
    /// Our quotient filter (as `AnyFilter::Quotient`), resized whenever an insert is refused.
    Resized(AnyFilter),
    /// The aleph-filter crate.
    AlephCrate(aleph_filter::AlephFilter),
}

/// Doublings from `declared` keys to `most` at `load`: the fewest `d` with
/// `declared·2^d >= most` (at least 0).
fn doublings_to(declared: u64, most: u64) -> u32 {
    let mut d = 0;
    while declared.max(1).saturating_mul(1 << d) < most && d < 40 {
        d += 1;
    }
    d
}

/// The aleph-filter crate as its `new(declared, p)` sizes it (slots for the declared keys at
/// 80%, a power of two; `ceil(log2(1/p))` fingerprint bits), with one more bit per doubling
/// its slots need to hold `most` at 80% (its own `new` gives none, and runs out).
fn aleph_crate(declared: u64, p: f64, most: u64) -> Result<aleph_filter::AlephFilter> {
    let slots = ((declared as f64 / 0.8).ceil() as u64)
        .next_power_of_two()
        .max(8);
    let grown = (most as f64 / 0.8).ceil() as u64;
    let bits = (-p.log2()).ceil() as u32 + doublings_to(slots, grown);
    Ok(aleph_filter::AlephFilter::with_params(
        usize::try_from(slots)?,
        bits,
    ))
}

impl Grown {
    /// `who` declared for `declared` keys at `p`; qfilter also told it may grow to `most`.
    ///
    /// # Errors
    /// A constructor's error.
    pub fn new(who: Contender, declared: u64, p: f64, most: u64) -> Result<Grown> {
        Ok(match who {
            Contender::Ours(v) => Grown::Ours(AnyFilter::build(v, &Params::new(declared, p))?),
            Contender::Qfilter => Grown::Qfilter(
                qfilter::Filter::new_resizeable(declared, most.max(declared), p)
                    .map_err(|e| anyhow!("qfilter: {e:?}"))?,
            ),
            Contender::GrowableBloom => {
                let n = usize::try_from(declared)?;
                let (peer, _) = Peer::build(PeerKind::GrowableBloom, n, p, std::iter::empty())?;
                Grown::Growable(peer)
            }
            Contender::AlephEstimate => {
                let params = Params::new(declared, p).max_n(most.max(declared));
                Grown::Ours(AnyFilter::build(Variant::Aleph, &params)?)
            }
            Contender::QuotientResize => Grown::Resized(AnyFilter::Quotient(
                QuotientFilter::builder()
                    .capacity(declared)
                    .fpr(p)
                    .growth_reserve(doublings_to(declared, most))
                    .build()?,
            )),
            Contender::AlephCrate => Grown::AlephCrate(aleph_crate(declared, p, most)?),
        })
    }

    /// Inserts `key`: `Ok(false)` when the filter refuses it (full) and is left as it was.
    ///
    /// # Errors
    /// Any other failure of the insert (a growing filter that cannot grow).
    pub fn insert(&mut self, key: &[u8]) -> Result<bool> {
        match self {
            Grown::Ours(f) => match f.insert(key) {
                Ok(()) => {}
                Err(Error::Full { .. }) => return Ok(false),
                Err(e) => return Err(e.into()),
            },
            // Every key a copy of its own, so that removing one never removes another's.
            Grown::Qfilter(f) => return Ok(f.insert_duplicated(key).is_ok()),
            Grown::Growable(Peer::GrowableBloom(f)) => {
                // `false` means "already tested positive", not a refusal: the key is found.
                f.insert(key);
            }
            Grown::Growable(_) => return Err(anyhow!("not a growable-bloom-filter peer")),
            Grown::Resized(f) => return resized_insert(f, key),
            // It takes every key (one lost to a full overflow area shows as a false negative).
            Grown::AlephCrate(f) => f.insert(key),
        }
        Ok(true)
    }

    /// Ours, whose `contains_batch` the batched lookups time; `None` for a peer (this stage
    /// drives the peers' crates one key at a time).
    #[must_use]
    pub fn batchable(&self) -> Option<&AnyFilter> {
        match self {
            Grown::Ours(f) | Grown::Resized(f) => Some(f),
            Grown::Qfilter(_) | Grown::Growable(_) | Grown::AlephCrate(_) => None,
        }
    }

    /// Whether `key` may be present.
    #[must_use]
    pub fn contains(&self, key: &[u8]) -> bool {
        match self {
            Grown::Ours(f) | Grown::Resized(f) => f.contains(key),
            Grown::Qfilter(f) => f.contains(key),
            Grown::Growable(p) => p.contains(key),
            Grown::AlephCrate(f) => f.contains(key),
        }
    }

    /// The structure's bytes.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        let b = match self {
            Grown::Ours(f) | Grown::Resized(f) => f.size_in_bytes(),
            Grown::Qfilter(f) => f.memory_usage(),
            Grown::Growable(p) => p.size_in_bytes(),
            // Its slots are a u64 and a byte of flags each, with 2q overflow slots.
            Grown::AlephCrate(f) => (f.capacity() + 2 * f.quotient_bits() as usize) * 9,
        };
        b as u64
    }

    /// Removes `key`: `Some(false)` when refused, `None` when the variant cannot delete.
    pub fn remove(&mut self, key: &[u8]) -> Option<bool> {
        match self {
            Grown::Ours(f) if f.capabilities().deletes => Some(f.remove(key).is_ok()),
            Grown::Resized(f) => Some(f.remove(key).is_ok()),
            Grown::Qfilter(f) => Some(f.remove(key)),
            Grown::AlephCrate(f) => Some(f.delete(key)),
            Grown::Ours(_) | Grown::Growable(_) => None,
        }
    }

    /// Adds every key of `other` (same contender, same parameters); `None` when the variant has
    /// no merge.
    pub fn merge(&mut self, other: &Grown) -> Option<Result<()>> {
        match (self, other) {
            (Grown::Ours(a), Grown::Ours(b)) | (Grown::Resized(a), Grown::Resized(b))
                if a.capabilities().merges =>
            {
                Some(a.merge(b).map_err(Into::into))
            }
            (Grown::Qfilter(a), Grown::Qfilter(b)) => Some(
                a.merge(true, b)
                    .map_err(|e| anyhow!("qfilter merge: {e:?}")),
            ),
            _ => None,
        }
    }
}

/// Whether the variant can delete (what [`Grown::remove`] does), and why not if not.
pub fn deletes(who: Contender) -> Result<(), String> {
    able(who, |c| c.deletes, ("remove", "deletes"))
}

/// Whether the variant can merge (what [`Grown::merge`] does), and why not if not.
pub fn merges(who: Contender) -> Result<(), String> {
    able(who, |c| c.merges, ("merge", "merges"))
}

/// Whether `who` has the capability `has` (the quotient peer has both, growable-bloom-filter
/// neither); why not names the operation and the variants that have it.
fn able(
    who: Contender,
    has: fn(Capabilities) -> bool,
    (op, which): (&str, &str),
) -> Result<(), String> {
    match who {
        Contender::Ours(v) if has(v.capabilities()) => Ok(()),
        Contender::Ours(v) => Err(format!(
            "the {v} filter has no {op} ({which}: {})",
            Variant::names_with(has)
        )),
        Contender::Qfilter | Contender::QuotientResize => Ok(()),
        Contender::AlephEstimate => able(Contender::Ours(Variant::Aleph), has, (op, which)),
        Contender::AlephCrate if op == "remove" => Ok(()),
        Contender::AlephCrate => Err(format!("aleph-filter has no {op}")),
        Contender::GrowableBloom => Err(format!("growable-bloom-filter has no {op}")),
    }
}

/// An insert into a quotient filter that doubles it when full: `Ok(false)` when it cannot
/// double any more (no remainder bit left to move).
fn resized_insert(f: &mut AnyFilter, key: &[u8]) -> Result<bool> {
    match f.insert(key) {
        Ok(()) => return Ok(true),
        Err(Error::Full { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let AnyFilter::Quotient(q) = f else {
        return Err(anyhow!("a resized filter that is not a quotient filter"));
    };
    if q.resize().is_err() {
        return Ok(false);
    }
    match f.insert(key) {
        Ok(()) => Ok(true),
        Err(Error::Full { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
