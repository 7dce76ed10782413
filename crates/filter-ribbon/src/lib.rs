//! Standard ribbon filters (Dillinger & Walzer, "Ribbon filter: practically smaller than Bloom
//! and Xor", 2021; the `Standard128Ribbon` of RocksDB): static filters that store, for `n`
//! keys, an `m × r` bit matrix `S` with `m` a few percent above `n`, and answer a query with one
//! 128-bit AND-and-parity per result bit.
//!
//! # Structure
//!
//! Each key gets a start slot `s` in `[0, m - 128]`, a 128-bit coefficient band `c` (bit 0 set)
//! and an `r`-bit fingerprint `b`, all from one 64-bit hash. The filter solves, over GF(2),
//!
//! ```text
//! for every key:   XOR over k with bit k of c set of  S[s + k]  ==  b
//! ```
//!
//! The equations are banded (every coefficient lies within 128 columns of the diagonal), so
//! *on-the-fly* Gaussian elimination inserts them one by one in time `O(w)` each, and back
//! substitution fills `S` from the last row up. `S` is stored column-interleaved: for each block
//! of 64 slots, `r` words of 64 bits, so a query reads at most three words per column.
//!
//! # Construction never fails
//!
//! Key hashes are sorted by start slot and deduplicated first, with a counting sort (a repeated
//! equation would be harmless, and is; the order keeps banding's memory accesses local); an
//! attempt whose equations contradict each other (in the shared columns or the extra one) is
//! retried with a new seed, and every
//! [`build::ATTEMPTS_PER_BUMP`] failures with 0.5 % more slots ([`math::ribbon_slots`], whose
//! first size grows slowly with the number of keys, so that large sets rarely need a retry).
//!
//! # False-positive rate
//!
//! A non-member's fingerprint is uniform and independent of `S` and of the parities its band
//! selects, so with `r` result bits it matches with probability `2^-r` (Dillinger & Walzer 2021,
//! §2). A target `p` between powers of two is met with a fractional number of columns, as
//! RocksDB does with its interleaved 6- and 7-column blocks: every key has `r = floor(log2(1/p))`
//! bits, and the keys whose start lies in the first fraction `f` of the start range have one
//! more, in an extra column stored only over the slots those keys reach. Starts are uniform, so
//!
//! ```text
//! ε = f 2^-(r+1) + (1 - f) 2^-r ,   f = 2 - p 2^(r+1)   (so that ε = p)
//! bits per key = (r m + m_extra) / n ,   m_extra ≈ f m
//! ```
//!
//! At `p = 1 %`: `r = 6`, `f = 0.72`, `ε = 1 %`, about 6.95 bits per key at 10^6 keys
//! (RocksDB reports about 7.05; the bound `log2(1/p)` is 6.64).
//!
//! ```
//! use filter_core::{math, StaticFilter};
//! use filter_ribbon::Ribbon;
//!
//! let keys: Vec<String> = (0..20_000).map(|i| format!("member-{i}")).collect();
//! let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
//! let filter = Ribbon::builder().fpr(0.01).build_from_keys(&refs)?;
//! assert!(refs.iter().all(|k| filter.contains(k)));
//! assert!((filter.expected_fpr() - 0.01).abs() < 1e-4);
//!
//! let trials = 200_000u64;
//! let fp = (0..trials)
//!     .filter(|i| filter.contains(format!("outsider-{i}").as_bytes()))
//!     .count() as f64;
//! let tolerance = 4.0 * math::binomial_sigma(filter.expected_fpr(), trials);
//! assert!((fp / trials as f64 - filter.expected_fpr()).abs() <= tolerance);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod build;
mod codec;
mod explain;
mod order;

pub use codec::FILE_KIND;

use filter_core::{reduce, Hash128, KeyHasher, Pages, Result, StaticFilter, Table};

/// The formulas (columns, sizing, rate, bits per key), kept in `filter_core::math` beside every
/// other variant's.
pub use filter_core::math::ribbon as math;

pub use math::{BLOCK, MAX_RESULT_BITS, W};

/// One key's equation: start slot, coefficient band (bit 0 set), fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    pub(crate) start: u64,
    pub(crate) coeff: u128,
    pub(crate) result: u16,
}

/// MurmurHash3's 64-bit finaliser (a bijection).
#[inline]
fn fmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    z ^ (z >> 33)
}

/// The 64 bits of a key hash the filter uses; keys equal here are one key to the filter.
#[inline]
fn key_of(h: Hash128) -> u64 {
    h.lo ^ h.hi.rotate_left(32)
}

/// The per-seed hash of a key (a bijection of the key for every seed).
#[inline]
fn derive(key: u64, seed: u64) -> u64 {
    fmix(key.wrapping_add(seed))
}

/// A key's equation: the start from the high bits of `d` (multiply-shift over `starts`), the
/// band and the fingerprint from further finaliser rounds, so the three are independent.
#[inline]
fn row_of(d: u64, starts: u64, r: u32) -> Row {
    let lo = fmix(d ^ 0x243f_6a88_85a3_08d3);
    let hi = fmix(d ^ 0x1319_8a2e_0370_7344);
    let fp = fmix(d ^ 0xa409_3822_299f_31d0);
    Row {
        start: reduce(d, starts),
        coeff: (u128::from(hi) << 64 | u128::from(lo)) | 1,
        result: (fp & ((1u64 << r) - 1)) as u16,
    }
}

/// A standard ribbon filter; see the crate docs.
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ribbon {
    hasher: KeyHasher,
    seed: u64,
    /// Result columns every key has.
    r: u32,
    slots: u64,
    /// Keys whose start is below this have one more result bit, in `extra`.
    boundary: u64,
    table: Table<u64>,
    /// The extra column, for slots `[0, boundary + 127]` rounded up to whole blocks.
    extra: Table<u64>,
    len: u64,
}

/// Settings of a [`Ribbon`] build: target rate, hasher and page advice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RibbonBuilder {
    fpr: f64,
    hasher: KeyHasher,
    pages: Pages,
}

impl Default for RibbonBuilder {
    /// 1 % (r = 6 plus 0.72 of a column), xxh3-128 with seed 0, huge pages advised.
    fn default() -> Self {
        RibbonBuilder {
            fpr: 0.01,
            hasher: KeyHasher::default(),
            pages: Pages::Huge,
        }
    }
}

impl RibbonBuilder {
    filter_core::setters! {
        /// Target false-positive rate, from 2^-16 to below 1; the realised rate is the target,
        /// up to the rounding of the boundary to a whole slot (see [`RibbonBuilder::columns`]).
        fpr(rate: f64) => fpr;
        /// Hash function and seed (default: xxh3-128, seed 0).
        hasher(hasher: KeyHasher) => hasher;
    }

    filter_core::pages_setter!(only);

    /// The columns for the target rate ([`math::ribbon_columns`]): `r = floor(log2(1/p))` for
    /// every key, and the fraction `f = 2 - p 2^(r+1)` of the start range whose keys get one
    /// more (so that `f 2^-(r+1) + (1 - f) 2^-r = p`); rates of 1/2 or more get one column.
    ///
    /// # Errors
    /// A rate outside (0, 1), or below 2^-16.
    pub fn columns(&self) -> Result<(u32, f64)> {
        math::ribbon_columns(self.fpr)
    }

    /// Builds from key hashes computed with this builder's hasher.
    ///
    /// # Errors
    /// As [`RibbonBuilder::columns`], or memory that cannot be allocated.
    pub fn build_from_hashes(&self, hashes: &[Hash128]) -> Result<Ribbon> {
        let (r, upper) = self.columns()?;
        Ribbon::build(hashes, (r, upper), self.hasher, self.pages)
    }

    /// Builds from key bytes.
    ///
    /// # Errors
    /// As [`RibbonBuilder::build_from_hashes`].
    pub fn build_from_keys(&self, keys: &[&[u8]]) -> Result<Ribbon> {
        let hashes: Vec<Hash128> = keys.iter().map(|k| self.hasher.hash(k)).collect();
        self.build_from_hashes(&hashes)
    }
}

impl Ribbon {
    /// The one place a filter is put together, from a build that solved or from a file whose
    /// shape the decoder checked against its payload: `span` is (slots, boundary), `columns`
    /// (table, extra).
    pub(crate) fn assemble(
        hasher: KeyHasher,
        seed: u64,
        r: u32,
        (slots, boundary): (u64, u64),
        (table, extra): (Table<u64>, Table<u64>),
        len: u64,
    ) -> Ribbon {
        Ribbon {
            hasher,
            seed,
            r,
            slots,
            boundary,
            table,
            extra,
            len,
        }
    }

    /// A builder (default: 1 %, xxh3-128 with seed 0).
    pub fn builder() -> RibbonBuilder {
        RibbonBuilder::default()
    }

    /// Result bits every key has (`r`); keys starting below [`Ribbon::boundary`] have `r + 1`.
    pub fn result_bits(&self) -> u32 {
        self.r
    }

    /// The start slot below which keys have `r + 1` result bits.
    pub fn boundary(&self) -> u64 {
        self.boundary
    }

    /// Slots (`m`, rows of the solution).
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The seed the construction settled on.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn starts(&self) -> u64 {
        self.slots - W as u64 + 1
    }
}

/// `$body` with the constant `$R` equal to `$r` (1 to 16): the number of columns as a
/// constant, so that the loops over them unroll.
macro_rules! by_columns {
    ($r:expr, $R:ident => $body:expr) => {
        $crate::by_columns!(@ $r, $R => $body; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@ $r:expr, $R:ident => $body:expr; $($n:literal)*) => {
        match $r {
            $($n => {
                const $R: usize = $n;
                $body
            })*
            // r <= MAX_RESULT_BITS = 16 (RibbonBuilder::columns, the decoder).
            _ => {
                const $R: usize = 16;
                $body
            }
        }
    };
}
pub(crate) use by_columns;

/// A key's band aligned to the interleaved blocks: the block holding its start slot, and the
/// coefficients shifted by the start's offset in that block, as three words (the third 0 when
/// the start is the block's first slot, and then not read, as it may lie past the table).
#[derive(Clone, Copy, Debug)]
struct Aligned {
    block: usize,
    words: [u64; 3],
}

impl Aligned {
    #[inline]
    fn new(row: &Row) -> Self {
        let off = (row.start % BLOCK as u64) as u32;
        let (lo, hi) = (row.coeff as u64, (row.coeff >> 64) as u64);
        // `x >> (64 - off)`, which is 0 at `off = 0` (a shift by 64 is not defined).
        let carry = |x: u64| (x >> 1) >> (63 - off);
        Aligned {
            block: row.start as usize / BLOCK,
            words: [lo << off, hi << off | carry(lo), carry(hi)],
        }
    }

    /// Whether, in each of the `R` columns of `table`, the parity of the solution bits the band
    /// selects equals the matching bit of `fp` (column `j`, bit `j`). The first two columns are
    /// checked together, without a branch between them: a non-member fails the first with
    /// probability 1/2, a branch no predictor can guess, while both pass only for a quarter of
    /// non-members; later columns stop at the first that differs. The three blocks the band
    /// covers are sliced once, at lengths the compiler knows, so the columns unroll without
    /// bounds checks; the third block is the second again when the band needs none (its
    /// coefficients are then 0, and it may lie past the table).
    #[inline]
    fn agrees<const R: usize>(&self, table: &[u64], fp: u64) -> bool {
        let at = self.block * R;
        let [c0, c1, c2] = self.words;
        let third = if c2 == 0 { at + R } else { at + 2 * R };
        let (w0, w1, w2) = (
            &table[at..at + R],
            &table[at + R..at + 2 * R],
            &table[third..third + R],
        );
        // The parity lands in bit 63, where fingerprint bit `j` is moved.
        let differs = |j: usize| {
            (build::parity64_top(w0[j] & c0 ^ w1[j] & c1 ^ w2[j] & c2) ^ fp << (63 - j)) >> 63
        };
        let first = if R >= 2 { 2 } else { R };
        (0..first).fold(0, |acc, j| acc | differs(j)) == 0 && (first..R).all(|j| differs(j) == 0)
    }
}

impl Ribbon {
    /// The per-seed hash of a key hash, from which its equation follows ([`row_of`]).
    #[inline]
    fn derived(&self, hash: Hash128) -> u64 {
        derive(key_of(hash), self.seed)
    }

    #[cfg(test)]
    fn row(&self, hash: Hash128) -> Row {
        row_of(self.derived(hash), self.starts(), self.r + 1)
    }

    /// Starts loading the words a query of `hash` reads (at most three blocks of the table,
    /// and of the extra column below the boundary).
    #[cfg(test)]
    fn prefetch_hash(&self, hash: Hash128) {
        let d = self.derived(hash);
        by_columns!(self.r, R => self.prefetch_in::<R>(d))
    }

    /// Appends the answers for `hashes`, requesting the words of the key
    /// [`filter_core::PREFETCH_AHEAD`] places on while this one is answered, and keeping its
    /// per-seed hash for its turn rather than computing it twice. The number of columns is
    /// chosen once per call, not once per key ([`Ribbon::answer_ahead_in`]).
    fn answer_ahead(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        by_columns!(self.r, R => self.answer_ahead_in::<R>(hashes, out))
    }

    /// [`Ribbon::answer_ahead`] for `R == self.r` columns, a constant: the per-key dispatch on
    /// `r` (an indirect jump) leaves the loop, and the prefetch and the column check unroll.
    fn answer_ahead_in<const R: usize>(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        const AHEAD: usize = filter_core::PREFETCH_AHEAD;
        let mut ahead = [0u64; AHEAD];
        for (slot, &h) in ahead.iter_mut().zip(hashes) {
            *slot = self.derived(h);
            self.prefetch_in::<R>(*slot);
        }
        for i in 0..hashes.len() {
            let d = ahead[i % AHEAD];
            if let Some(&next) = hashes.get(i + AHEAD) {
                let later = self.derived(next);
                self.prefetch_in::<R>(later);
                ahead[i % AHEAD] = later;
            }
            out.push(self.contains_in::<R>(d));
        }
    }

    /// Starts loading the words a query of per-seed hash `d` reads, for `R == self.r` columns:
    /// one bounds check for the three words of the table (the last of them lies past the table
    /// only for a band at the very end, whose third block is never read: then only the first
    /// two are requested).
    #[inline]
    fn prefetch_in<const R: usize>(&self, d: u64) {
        let start = reduce(d, self.starts());
        let block = start as usize / BLOCK;
        let at = block * R;
        if let Some(words) = self.table.get(at..at + 3 * R) {
            filter_core::prefetch(&words[0]);
            filter_core::prefetch(&words[8.min(3 * R - 1)]);
            filter_core::prefetch(&words[3 * R - 1]);
        } else if let Some(words) = self.table.get(at..) {
            words.iter().step_by(8).for_each(filter_core::prefetch);
        }
        // The extra column's word, or (above the boundary, unpredictably for 28 % of keys at
        // 1 %) the table's first word again, already on its way: chosen without a branch.
        let extra = self.extra.get(block).filter(|_| start < self.boundary);
        if let Some(word) = extra.or_else(|| self.table.get(at)) {
            filter_core::prefetch(word);
        }
    }

    /// [`Ribbon::contains_derived`] for `R == self.r` columns.
    #[inline]
    fn contains_in<const R: usize>(&self, d: u64) -> bool {
        let row = row_of(d, self.starts(), self.r + 1);
        let band = Aligned::new(&row);
        let fp = u64::from(row.result);
        band.agrees::<R>(&self.table, fp)
            && (row.start >= self.boundary || band.agrees::<1>(&self.extra, fp >> R))
    }

    /// [`StaticFilter::contains_hash`] from the per-seed hash.
    #[inline]
    fn contains_derived(&self, d: u64) -> bool {
        by_columns!(self.r, R => self.contains_in::<R>(d))
    }
}

impl StaticFilter for Ribbon {
    /// Builds at the default 1 %; use [`Ribbon::builder`] for another rate.
    fn from_hashes(hashes: &[Hash128], hasher: KeyHasher) -> Result<Self> {
        Ribbon::builder().hasher(hasher).build_from_hashes(hashes)
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.contains_derived(self.derived(hash))
    }

    /// Pipelined once the tables outgrow the caches: the words of the key
    /// [`filter_core::PREFETCH_AHEAD`] places on are requested while this one is answered, and
    /// its per-seed hash is kept for its turn rather than computed twice.
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        out.clear();
        out.reserve(hashes.len());
        if filter_core::worth_prefetching(self.size_in_bytes(), 3) {
            self.answer_ahead(hashes, out);
        } else {
            out.extend(hashes.iter().map(|&h| self.contains_hash(h)));
        }
    }

    fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn size_in_bytes(&self) -> usize {
        (self.table.len() + self.extra.len()) * 8
    }

    /// Both tables' (an extra column below
    /// [`HUGE_PAGE_MIN_BYTES`](filter_core::HUGE_PAGE_MIN_BYTES) lies on the heap; an empty
    /// one, at rates that need none, counts nothing).
    fn huge_page_bytes(&self) -> Option<u64> {
        [&self.table, &self.extra]
            .into_iter()
            .filter(|t| !t.is_empty())
            .map(|t| t.huge_page_bytes())
            .sum()
    }

    /// `f 2^-(r+1) + (1 - f) 2^-r`, `f` the realised fraction of starts below the boundary
    /// ([`math::ribbon_fpr`]).
    fn expected_fpr(&self) -> f64 {
        math::ribbon_fpr(self.r, self.boundary, self.starts())
    }

    fn name(&self) -> &'static str {
        "ribbon"
    }
}

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
