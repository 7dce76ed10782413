//! One growing filter of any contender, behind one set of calls.

use super::Contender;
use anyhow::{anyhow, Result};
use filterlab::{AnyFilter, Capabilities, Error, Filter, Params, Variant};
use filterlab_peers::{Peer, PeerKind};

/// A filter of one contender, declared small and grown by inserts.
pub enum Grown {
    /// Ours, through the registry.
    Ours(AnyFilter),
    /// The qfilter crate.
    Qfilter(qfilter::Filter),
    /// growable-bloom-filter, held as the harness's peer.
    Growable(Peer),
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
        }
        Ok(true)
    }

    /// Ours, whose `contains_batch` the batched lookups time; `None` for a peer (this stage
    /// drives the peers' crates one key at a time).
    #[must_use]
    pub fn batchable(&self) -> Option<&AnyFilter> {
        match self {
            Grown::Ours(f) => Some(f),
            Grown::Qfilter(_) | Grown::Growable(_) => None,
        }
    }

    /// Whether `key` may be present.
    #[must_use]
    pub fn contains(&self, key: &[u8]) -> bool {
        match self {
            Grown::Ours(f) => f.contains(key),
            Grown::Qfilter(f) => f.contains(key),
            Grown::Growable(p) => p.contains(key),
        }
    }

    /// The structure's bytes.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        let b = match self {
            Grown::Ours(f) => f.size_in_bytes(),
            Grown::Qfilter(f) => f.memory_usage(),
            Grown::Growable(p) => p.size_in_bytes(),
        };
        b as u64
    }

    /// Removes `key`: `Some(false)` when refused, `None` when the variant cannot delete.
    pub fn remove(&mut self, key: &[u8]) -> Option<bool> {
        match self {
            Grown::Ours(f) if f.capabilities().deletes => Some(f.remove(key).is_ok()),
            Grown::Qfilter(f) => Some(f.remove(key)),
            Grown::Ours(_) | Grown::Growable(_) => None,
        }
    }

    /// Adds every key of `other` (same contender, same parameters); `None` when the variant has
    /// no merge.
    pub fn merge(&mut self, other: &Grown) -> Option<Result<()>> {
        match (self, other) {
            (Grown::Ours(a), Grown::Ours(b)) if a.capabilities().merges => {
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
        Contender::Qfilter => Ok(()),
        Contender::GrowableBloom => Err(format!("growable-bloom-filter has no {op}")),
    }
}
