//! The conformance suite every filter must pass, generic over the traits (feature `testkit`).
//!
//! Each check panics with a message naming the law that broke, so it can be called from plain
//! `#[test]`s and from proptest bodies alike. The filterlab facade runs all of them against every
//! variant; a third-party filter can run them too.

mod lock_free;
mod static_filter;

pub use lock_free::{
    check_converts_both_ways, check_lock_free, check_same_as_single, check_sizing_refusals,
    check_threads_lose_nothing, hammer,
};
pub use static_filter::{
    check_static_build, check_static_filter, check_static_keys, check_static_repeats, hash_stream,
    hashes, SplitMix64,
};

use crate::{math, Deletable, Error, Filter, FormatError, Persist, StaticFilter};
use std::collections::HashMap;

/// `n` distinct keys that share no key with any other `tag`: `"{tag}-{i}@example.com"`.
pub fn keys(tag: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{tag}-{i}@example.com").into_bytes())
        .collect()
}

/// Inserts every key (refusals as full, or as one copy too many, are allowed); then checks that
/// each key whose insert succeeded is reported present.
/// Returns how many inserts succeeded.
pub fn check_no_false_negatives<F: Filter>(filter: &mut F, keys: &[Vec<u8>]) -> usize {
    let mut accepted = Vec::with_capacity(keys.len());
    for k in keys {
        match filter.insert(k) {
            Ok(()) => accepted.push(k),
            // A full table, or a key repeated more often than its buckets hold.
            Err(Error::Full { .. } | Error::TooManyCopies { .. }) => {}
            Err(e) => panic!(
                "{}: insert failed with an unexpected error: {e}",
                filter.name()
            ),
        }
    }
    for k in &accepted {
        assert!(
            filter.contains(k),
            "{}: false negative for {:?}",
            filter.name(),
            String::from_utf8_lossy(k)
        );
    }
    accepted.len()
}

/// Keeps inserting fresh keys until one is refused, then checks that the refusal changed nothing
/// (same bytes, same answers) and that every key inserted before it is still present.
/// Returns the number of keys stored when the first insert failed, or `None` if `limit` keys all
/// went in.
pub fn check_failed_insert_changes_nothing<F: Filter + Persist>(
    filter: &mut F,
    tag: &str,
    limit: usize,
) -> Option<usize> {
    let candidates = keys(tag, limit);
    for (i, k) in candidates.iter().enumerate() {
        let before = filter.to_bytes();
        let len_before = filter.len();
        match filter.insert(k) {
            Ok(()) => {}
            Err(Error::Full { .. }) => {
                assert_eq!(
                    filter.to_bytes(),
                    before,
                    "{}: a failed insert changed the filter",
                    filter.name()
                );
                assert_eq!(filter.len(), len_before);
                for earlier in &candidates[..i] {
                    assert!(
                        filter.contains(earlier),
                        "{}: key lost after a failed insert",
                        filter.name()
                    );
                }
                return Some(i);
            }
            Err(e) => panic!("{}: unexpected error {e}", filter.name()),
        }
    }
    None
}

/// Inserts `keys` into a growable filter built with a memory cap of `cap` bytes until a growth
/// is refused, then checks the refusal: it is [`Error::MemoryCap`] naming `cap`, it left the
/// filter equal to what it was, and every key stored before it is still present. Returns how
/// many keys went in; panics if all did (the cap never bit).
pub fn check_growth_stops_at_cap<F>(filter: &mut F, keys: &[Vec<u8>], cap: u64) -> usize
where
    F: Filter + Clone + PartialEq + std::fmt::Debug,
{
    for (stored, k) in keys.iter().enumerate() {
        let before = filter.clone();
        match filter.insert(k) {
            Ok(()) => {}
            Err(Error::MemoryCap { cap: named, .. }) if named == cap => {
                assert_eq!(*filter, before, "a refused growth changed the filter");
                let lost = keys[..stored]
                    .iter()
                    .filter(|k| !filter.contains(k.as_slice()))
                    .count();
                assert_eq!(lost, 0, "{}: keys lost at the memory cap", filter.name());
                return stored;
            }
            Err(e) => panic!("{}: unexpected error {e}", filter.name()),
        }
    }
    panic!(
        "{}: {} keys went in under a {cap}-byte cap",
        filter.name(),
        keys.len()
    )
}

/// Saves and loads `filter`, checking that the copy has the same bytes, the same length and the
/// same answer for every probe.
pub fn check_round_trip<F: Filter + Persist>(filter: &F, probes: &[Vec<u8>]) {
    check_copy_same(filter, filter.name(), |f| Observed {
        len: f.len(),
        capacity: Some(f.capacity()),
        size_in_bytes: None,
        hasher: f.hasher(),
        fpr_bits: f.expected_fpr().to_bits(),
        answers: probes.iter().map(|p| f.contains(p)).collect(),
        batched: None,
    });
}

/// [`check_round_trip`] for a [`StaticFilter`] (no `insert`, no capacity): the copy has the
/// same bytes, length, hasher and rate, and the same answer for every probe, by one query and
/// by batch.
pub fn check_static_round_trip<F: StaticFilter + Persist>(filter: &F, probes: &[Vec<u8>]) {
    let refs: Vec<&[u8]> = probes.iter().map(Vec::as_slice).collect();
    check_copy_same(filter, filter.name(), |f| {
        let mut batched = Vec::new();
        f.contains_batch(&refs, &mut batched);
        Observed {
            len: f.len(),
            capacity: None,
            size_in_bytes: Some(f.size_in_bytes()),
            hasher: f.hasher(),
            fpr_bits: f.expected_fpr().to_bits(),
            answers: refs.iter().map(|p| f.contains(p)).collect(),
            batched: Some(batched),
        }
    });
}

/// What a round trip must keep of a filter: what a caller sees of it without changing it.
#[derive(Debug, PartialEq)]
struct Observed {
    len: u64,
    capacity: Option<u64>,
    size_in_bytes: Option<usize>,
    hasher: crate::KeyHasher,
    fpr_bits: u64,
    answers: Vec<bool>,
    batched: Option<Vec<bool>>,
}

/// The one body of the round-trip checks: the copy loaded from `filter`'s bytes (and the one
/// read back through `write_to`/`read_from`) has the same bytes, and `observe` sees the same in
/// the copy as in `filter`.
fn check_copy_same<F: Persist>(filter: &F, name: &str, observe: impl Fn(&F) -> Observed) {
    let bytes = filter.to_bytes();
    let copy = F::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: own bytes rejected: {e}"));
    assert_eq!(copy.to_bytes(), bytes, "{name}: round trip changed bytes");
    let (got, want) = (observe(&copy), observe(filter));
    assert_eq!(got.batched, want.batched, "{name}: batched answers differ");
    assert_eq!(got.answers, want.answers, "{name}: answers differ");
    assert_eq!(got, want, "{name}: the copy differs");
    let mut via_io = Vec::new();
    filter.write_to(&mut via_io).expect("write to a Vec");
    let copy = F::read_from(via_io.as_slice()).expect("read back");
    assert_eq!(copy.to_bytes(), bytes);
    // The same filter's version 1 file, as earlier builds wrote it, loads to the same filter.
    let v1 = filter
        .to_bytes_version_1()
        .unwrap_or_else(|e| panic!("{name}: no version 1 file: {e}"));
    let old = F::from_bytes(&v1).unwrap_or_else(|e| panic!("{name}: version 1 rejected: {e}"));
    assert_eq!(
        old.to_bytes(),
        bytes,
        "{name}: version 1 loads to another filter"
    );
    assert_eq!(observe(&old), want, "{name}: version 1 answers differ");
}

/// Checks that damaged bytes are refused with an error, never a panic or a wrong filter:
/// every truncation (sampled for large filters), single-bit flips across the file, another
/// variant's id, a newer version, and trailing garbage.
pub fn check_rejects_bad_bytes<F: Persist>(filter: &F) {
    let bytes = filter.to_bytes();
    let step = (bytes.len() / 512).max(1);
    for cut in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        assert!(
            F::from_bytes(&bytes[..cut]).is_err(),
            "truncation to {cut} accepted"
        );
    }
    for bit in (0..bytes.len() * 8).step_by(step * 3 + 7) {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        assert!(F::from_bytes(&b).is_err(), "bit flip {bit} accepted");
    }

    let reseal = |mut b: Vec<u8>| {
        crate::format::reseal(&mut b);
        b
    };
    let mut other = bytes.clone();
    other[10] = if other[10] == 1 { 2 } else { 1 };
    assert!(matches!(
        F::from_bytes(&reseal(other)),
        Err(FormatError::WrongVariant { .. })
    ));
    let mut newer = bytes.clone();
    newer[8..10].copy_from_slice(&(crate::format::FORMAT_VERSION + 1).to_le_bytes());
    assert!(matches!(
        F::from_bytes(&newer),
        Err(FormatError::UnsupportedVersion { .. })
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(F::from_bytes(&longer).is_err(), "trailing byte accepted");
    assert!(F::from_bytes(&[]).is_err());
}

/// Checks `insert_if_absent` against its definition on a twin filter (`twin` built exactly like
/// `filter`): for each key, `true` exactly when the twin did not contain it and took it, `false`
/// with nothing changed when it did, the same refusal when the twin refused; at the end both
/// have the same bytes, and every key is present. Returns how many keys were reported new.
pub fn check_insert_if_absent<F: Filter + Persist>(
    filter: &mut F,
    twin: &mut F,
    keys: &[Vec<u8>],
) -> usize {
    let mut new = 0;
    for k in keys {
        let was_present = twin.contains(k);
        let before = filter.to_bytes();
        let got = filter.insert_if_absent(k);
        let want = if was_present {
            Ok(false)
        } else {
            twin.insert(k).map(|()| true)
        };
        assert_eq!(got, want, "{}: insert_if_absent disagrees", filter.name());
        match got {
            Ok(true) => new += 1,
            _ => assert_eq!(filter.to_bytes(), before, "{}: changed", filter.name()),
        }
        if got.is_ok() {
            assert!(filter.contains(k), "{}: false negative", filter.name());
            assert_eq!(
                filter.insert_if_absent(k),
                Ok(false),
                "{}: twice new",
                filter.name()
            );
        }
    }
    assert_eq!(
        filter.to_bytes(),
        twin.to_bytes(),
        "{}: states differ",
        filter.name()
    );
    new
}

/// Checks that `bytes` are refused as an invalid file of `F`, with a message naming `why`.
pub fn check_refused<F: Persist>(bytes: &[u8], why: &str) {
    match F::from_bytes(bytes) {
        Err(FormatError::Invalid(msg)) => assert!(msg.contains(why), "{why:?} not in {msg:?}"),
        Err(e) => panic!("expected a refusal naming {why:?}, got {e:?}"),
        Ok(_) => panic!("expected a refusal naming {why:?}, got a filter"),
    }
}

/// Re-envelopes `bytes` (a valid file of `F`) with its parameter and payload sections changed
/// by `edit`, with correct section lengths and a recomputed checksum, so the result always
/// reaches `F`'s decoder.
pub fn reenvelope<F: Persist>(
    bytes: &[u8],
    edit: impl FnOnce(&mut Vec<u8>, &mut Vec<u8>),
) -> Vec<u8> {
    let mut d = crate::format::decode(bytes, F::KIND).expect("a valid file");
    let mut params = d.params.take(d.params.remaining()).expect("whole").to_vec();
    let mut payload = d
        .payload
        .take(d.payload.remaining())
        .expect("whole")
        .to_vec();
    edit(&mut params, &mut payload);
    let version = d.payload.format_version();
    let mut e = crate::format::Encoder::of_version(F::KIND, d.hasher, payload.len(), version);
    e.bytes(&params).begin_payload().bytes(&payload);
    e.finish()
}

/// The proptest form of [`check_decoder_validates`]: writes `filter`'s file with `edits` applied
/// (`(in_params, at, value)`: section byte `at % len` set to `value`; empty sections skipped),
/// then `resize` (`(in_params, len)`: that section cut or padded with 0xAB to at most 8 bytes
/// past its length), re-enveloped by [`reenvelope`]. The result must load as a filter that saves
/// back to exactly those bytes, or be refused for a reason other than its checksum (which
/// [`reenvelope`] made right, so a checksum refusal means the edit never reached the decoder).
pub fn check_resealed_edits<F: Persist>(
    filter: &F,
    edits: &[(bool, u16, u8)],
    resize: Option<(bool, usize)>,
) {
    let bytes = reenvelope::<F>(&filter.to_bytes(), |params, payload| {
        for &(in_params, at, value) in edits {
            let section = if in_params {
                &mut *params
            } else {
                &mut *payload
            };
            if !section.is_empty() {
                let i = usize::from(at) % section.len();
                section[i] = value;
            }
        }
        if let Some((in_params, len)) = resize {
            let section = if in_params { params } else { payload };
            let len = len.min(section.len() + 8);
            section.resize(len, 0xAB);
        }
    });
    match F::from_bytes(&bytes) {
        Ok(g) => assert!(
            g.to_bytes() == bytes,
            "an edited file loaded but saves differently"
        ),
        Err(e) => assert!(
            !matches!(e, FormatError::ChecksumMismatch { .. }),
            "a resealed file failed its checksum: {e}"
        ),
    }
}

/// Mutates every parameter byte and a sample of payload bytes (to 0x00, 0xFF and a flipped low
/// bit), and truncates and extends each section, re-enveloped by [`reenvelope`] so that the
/// checksum and section lengths are right. Each result must reach the decoder (no envelope
/// error), and load either as a filter that saves back to exactly those bytes or as a decoder
/// error. Returns how many mutations the decoder rejected, which must not be zero.
pub fn check_decoder_validates<F: Persist>(filter: &F) -> usize {
    let bytes = filter.to_bytes();
    let d = crate::format::decode(&bytes, F::KIND).expect("own bytes");
    let (n_params, n_payload) = (d.params.remaining(), d.payload.remaining());
    let mut rejected = 0;
    let mut probe = |mutated: Vec<u8>| match F::from_bytes(&mutated) {
        Ok(g) => assert_eq!(g.to_bytes(), mutated, "a loaded filter saves differently"),
        Err(
            e @ (FormatError::BadMagic
            | FormatError::ChecksumMismatch { .. }
            | FormatError::UnsupportedVersion { .. }
            | FormatError::WrongVariant { .. }
            | FormatError::UnknownHash(_)),
        ) => panic!("the mutation did not reach the decoder: {e}"),
        Err(_) => rejected += 1,
    };
    let step = (n_payload / 64).max(1);
    for at in (0..n_params)
        .map(|i| (true, i))
        .chain((0..n_payload).step_by(step).map(|i| (false, i)))
    {
        for value in [0x00u8, 0xFF, 0x01] {
            probe(reenvelope::<F>(&bytes, |params, payload| {
                let section = if at.0 { params } else { payload };
                section[at.1] = if value == 0x01 {
                    section[at.1] ^ 1
                } else {
                    value
                };
            }));
        }
    }
    for params_side in [true, false] {
        for change in [-1i64, 1, 8] {
            probe(reenvelope::<F>(&bytes, |params, payload| {
                let section = if params_side { params } else { payload };
                let len = (section.len() as i64 + change).max(0) as usize;
                section.resize(len, 0);
            }));
        }
    }
    assert!(rejected > 0, "no mutation was rejected by the decoder");
    rejected
}

/// Saves `filter` with [`Persist::save`], then loads every truncation of the file and every
/// single-bit corruption of it: each load must return an error or a filter identical to the
/// original (same bytes). Returns how many damaged files loaded (always 0 in practice: the
/// checksum covers every bit).
pub fn check_damaged_files<F: Persist>(filter: &F, dir: &std::path::Path) -> usize {
    let path = dir.join("filter.bin");
    filter.save(&path).expect("save");
    let bytes = std::fs::read(&path).expect("read back");
    assert_eq!(bytes, filter.to_bytes(), "save wrote other bytes");
    let mut loaded = 0;
    let mut try_load = |damaged: &[u8]| {
        std::fs::write(&path, damaged).expect("write fixture");
        if let Ok(g) = F::load(&path) {
            assert_eq!(
                g.to_bytes(),
                bytes,
                "a damaged file loaded as another filter"
            );
            loaded += 1;
        }
    };
    for cut in 0..bytes.len() {
        try_load(&bytes[..cut]);
    }
    for bit in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        try_load(&b);
    }
    filter.save(&path).expect("save again");
    let back = F::load(&path).expect("intact file loads");
    assert_eq!(back.to_bytes(), bytes);
    loaded
}

/// One step of a model-based test of a deletable filter.
#[derive(Clone, Debug)]
pub enum Op {
    /// Insert key number `.0`.
    Insert(u16),
    /// Remove key number `.0`.
    Remove(u16),
}

/// Runs `ops` against `filter` and a `HashMap<key, count>` model, checking after every step:
/// `len` equals the model's total, every key the model holds is present with a count at least the
/// model's, removing a held key succeeds, and removing a key the filter reports absent is refused
/// without changing anything. (Removing a key that was never inserted but is a false positive is
/// a caller error the filter cannot detect, so the test never does it.)
pub fn check_deletable_against_model<F: Deletable + Persist>(filter: &mut F, ops: &[Op]) {
    let mut model: HashMap<u16, u32> = HashMap::new();
    let key = |i: u16| format!("model-key-{i}").into_bytes();
    for op in ops {
        match *op {
            Op::Insert(i) => match filter.insert(&key(i)) {
                Ok(()) => *model.entry(i).or_default() += 1,
                Err(Error::Full { .. } | Error::TooManyCopies { .. }) => {}
                Err(e) => panic!("{}: insert error {e}", filter.name()),
            },
            Op::Remove(i) => {
                let held = model.get(&i).copied().unwrap_or(0);
                if held > 0 {
                    filter
                        .remove(&key(i))
                        .unwrap_or_else(|e| panic!("{}: removing a held key: {e}", filter.name()));
                    model.insert(i, held - 1);
                } else if !filter.contains(&key(i)) {
                    let before = filter.to_bytes();
                    assert_eq!(filter.remove(&key(i)), Err(Error::NotPresent));
                    assert_eq!(
                        filter.to_bytes(),
                        before,
                        "a refused removal changed the filter"
                    );
                }
            }
        }
        let total: u64 = model.values().map(|&c| u64::from(c)).sum();
        assert_eq!(
            filter.len(),
            total,
            "{}: len disagrees with the model",
            filter.name()
        );
        for (&i, &c) in &model {
            if c > 0 {
                assert!(
                    filter.contains(&key(i)),
                    "{}: false negative",
                    filter.name()
                );
                let n = filter.count(&key(i));
                assert!(
                    n >= c,
                    "{}: count {n} below the {c} copies inserted",
                    filter.name()
                );
            }
        }
    }
}

/// Measures the false-positive rate of `filter` over `probes` (keys never inserted):
/// returns (false positives, probes).
pub fn measure_fpr<F: Filter + ?Sized>(filter: &F, probes: &[Vec<u8>]) -> (u64, u64) {
    let fp = probes.iter().filter(|p| filter.contains(p)).count() as u64;
    (fp, probes.len() as u64)
}

/// Inserts the keys `member-0` .. `member-{n-1}`: the members of each filter's seeded
/// false-positive doctest (its `# False-positive rate` section).
///
/// # Errors
/// The first insert the filter refuses.
pub fn insert_members<F: Filter + ?Sized>(filter: &mut F, n: u64) -> crate::Result<()> {
    (0..n).try_for_each(|i| filter.insert(format!("member-{i}").as_bytes()))
}

/// Probes the keys `other-0` .. `other-{probes-1}`, disjoint from [`insert_members`]'s: returns
/// (false positives, probes), for [`assert_fpr_near`] or an interval.
pub fn probe_others<F: Filter + ?Sized>(filter: &F, probes: u64) -> (u64, u64) {
    let fp = (0..probes)
        .filter(|i| filter.contains(format!("other-{i}").as_bytes()))
        .count();
    (fp as u64, probes)
}

/// Probes [`probe_others`]'s `probes` keys and asserts, as [`assert_fpr_near`] does at 4 sigma,
/// that the rate they see is `expected`: the last step of every filter's false-positive doctest.
pub fn assert_others_fpr<F: Filter + ?Sized>(name: &str, filter: &F, probes: u64, expected: f64) {
    let (false_positives, trials) = probe_others(filter, probes);
    assert_fpr_near(name, false_positives, trials, expected, 4.0);
}

/// Asserts that `false_positives / trials` lies within `sigmas` binomial standard deviations of
/// `expected` (with one count of slack for very small rates).
pub fn assert_fpr_near(name: &str, false_positives: u64, trials: u64, expected: f64, sigmas: f64) {
    let measured = false_positives as f64 / trials as f64;
    let tol = fpr_tolerance(trials, expected, sigmas);
    assert!(
        fpr_within(false_positives, trials, expected, sigmas),
        "{name}: measured FP rate {measured:.6} ({false_positives}/{trials}) is more than \
         {sigmas} sigma from the formula's {expected:.6} (tolerance {tol:.6})"
    );
}

/// Whether `false_positives / trials` lies within `sigmas` binomial standard deviations of
/// `expected` (the test of [`assert_fpr_near`], for checks that must also show a rate outside).
pub fn fpr_within(false_positives: u64, trials: u64, expected: f64, sigmas: f64) -> bool {
    let measured = false_positives as f64 / trials as f64;
    (measured - expected).abs() <= fpr_tolerance(trials, expected, sigmas)
}

fn fpr_tolerance(trials: u64, expected: f64, sigmas: f64) -> f64 {
    sigmas * math::binomial_sigma(expected, trials) + 1.0 / trials as f64
}

#[cfg(test)]
mod tests;
