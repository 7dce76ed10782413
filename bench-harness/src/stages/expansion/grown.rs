//! One growing filter of any contender, behind one set of calls.

use super::Contender;
use anyhow::{anyhow, Result};
use filterlab::{CuckooFilter, Deletable, ExpandableCuckoo, Filter, ScalableBloom};
use filterlab_peers::{Peer, PeerKind};

/// A filter of one contender, declared small and grown by inserts.
pub enum Grown {
    /// Ours.
    Expandable(ExpandableCuckoo),
    /// Ours.
    Scalable(ScalableBloom),
    /// Ours.
    Cuckoo(CuckooFilter),
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
            Contender::Expandable => Grown::Expandable(
                ExpandableCuckoo::builder()
                    .capacity(declared)
                    .fpr(p)
                    .build()?,
            ),
            Contender::Scalable => {
                Grown::Scalable(ScalableBloom::builder().capacity(declared).fpr(p).build()?)
            }
            Contender::Cuckoo => {
                Grown::Cuckoo(CuckooFilter::builder().capacity(declared).fpr(p).build()?)
            }
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
            Grown::Expandable(f) => f.insert(key)?,
            Grown::Scalable(f) => f.insert(key)?,
            Grown::Cuckoo(f) => return Ok(f.insert(key).is_ok()),
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

    /// Whether `key` may be present.
    #[must_use]
    pub fn contains(&self, key: &[u8]) -> bool {
        match self {
            Grown::Expandable(f) => f.contains(key),
            Grown::Scalable(f) => f.contains(key),
            Grown::Cuckoo(f) => f.contains(key),
            Grown::Qfilter(f) => f.contains(key),
            Grown::Growable(p) => p.contains(key),
        }
    }

    /// The structure's bytes.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        let b = match self {
            Grown::Expandable(f) => f.size_in_bytes(),
            Grown::Scalable(f) => f.size_in_bytes(),
            Grown::Cuckoo(f) => f.size_in_bytes(),
            Grown::Qfilter(f) => f.memory_usage(),
            Grown::Growable(p) => p.size_in_bytes(),
        };
        b as u64
    }

    /// Removes `key`: `Some(false)` when refused, `None` when the variant cannot delete.
    pub fn remove(&mut self, key: &[u8]) -> Option<bool> {
        match self {
            Grown::Expandable(f) => Some(f.remove(key).is_ok()),
            Grown::Cuckoo(f) => Some(f.remove(key).is_ok()),
            Grown::Qfilter(f) => Some(f.remove(key)),
            Grown::Scalable(_) | Grown::Growable(_) => None,
        }
    }

    /// Adds every key of `other` (same contender, same parameters); `None` when the variant has
    /// no merge.
    pub fn merge(&mut self, other: &Grown) -> Option<Result<()>> {
        match (self, other) {
            (Grown::Expandable(a), Grown::Expandable(b)) => Some(a.merge(b).map_err(Into::into)),
            (Grown::Qfilter(a), Grown::Qfilter(b)) => Some(
                a.merge(true, b)
                    .map_err(|e| anyhow!("qfilter merge: {e:?}")),
            ),
            _ => None,
        }
    }
}

/// Whether the variant can delete (what [`Grown::remove`] does), and why not if not.
pub fn deletes(who: Contender) -> Result<(), &'static str> {
    match who {
        Contender::Expandable | Contender::Cuckoo | Contender::Qfilter => Ok(()),
        Contender::Scalable => Err("a scalable Bloom filter cannot delete (bits are shared)"),
        Contender::GrowableBloom => Err("growable-bloom-filter has no remove"),
    }
}

/// Whether the variant can merge (what [`Grown::merge`] does), and why not if not.
pub fn merges(who: Contender) -> Result<(), &'static str> {
    match who {
        Contender::Expandable | Contender::Qfilter => Ok(()),
        Contender::Scalable => Err("ScalableBloom has no merge"),
        Contender::Cuckoo => Err("CuckooFilter has no merge (two full tables do not fit in one)"),
        Contender::GrowableBloom => Err("growable-bloom-filter has no merge"),
    }
}
