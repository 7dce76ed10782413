//! [`KeySet`]: millions of keys in one byte buffer plus an offset table.

use super::*;

/// An append-only list of byte-string keys stored contiguously.
///
/// All key bytes live in one buffer and key `i` is `bytes[offsets[i]..offsets[i + 1]]`, so the
/// overhead is 8 bytes per key and reading keys in order streams through memory. Offsets are
/// `u64` rather than `u32` because keys read from a user's file may exceed 4 GiB in total.
///
/// ```
/// use bench_harness::dataset::KeySet;
///
/// let mut keys = KeySet::new();
/// keys.push(b"ada@example.org");
/// keys.push(b"alan@example.org");
/// assert_eq!(keys.len(), 2);
/// assert_eq!(keys.get(1), b"alan@example.org");
/// assert_eq!(keys.total_bytes(), 31);
/// assert_eq!(keys.iter().map(<[u8]>::len).sum::<usize>(), 31);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct KeySet {
    pub(super) bytes: Vec<u8>,
    /// Starts with 0 and has `len() + 1` entries, so every key has both ends without a branch.
    pub(super) offsets: Vec<u64>,
}

impl KeySet {
    /// Creates an empty key set.
    #[must_use]
    pub fn new() -> Self {
        Self::with_capacity(0, 0)
    }

    /// Creates an empty key set with room for `keys` keys totalling `bytes` bytes.
    #[must_use]
    pub fn with_capacity(keys: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(keys.saturating_add(1));
        offsets.push(0);
        KeySet {
            bytes: Vec::with_capacity(bytes),
            offsets,
        }
    }

    /// Returns the number of keys.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Returns `true` if the set holds no key.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Returns the summed length of all keys, in bytes (separators not included).
    #[inline]
    #[must_use]
    pub fn total_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Returns key `i`.
    ///
    /// # Panics
    ///
    /// Panics if `i >= self.len()`, like slice indexing.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> &[u8] {
        let (start, end) = (self.offsets[i], self.offsets[i + 1]);
        &self.bytes[start as usize..end as usize]
    }

    /// Appends a key. Keys may repeat and may be empty; [`verify`] and [`write_keys`] are where
    /// such keys are rejected.
    #[inline]
    pub fn push(&mut self, key: &[u8]) {
        self.bytes.extend_from_slice(key);
        self.offsets.push(self.bytes.len() as u64);
    }

    /// Returns an iterator over the keys, in insertion order.
    #[must_use]
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            bytes: &self.bytes,
            ends: self.offsets.windows(2),
        }
    }

    /// Removes all keys, keeping the allocations.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.offsets.truncate(1);
    }

    /// Releases spare capacity; worth it after bulk loading since the harness keeps key sets
    /// alive for the whole run.
    pub(super) fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.offsets.shrink_to_fit();
    }
}

impl Default for KeySet {
    fn default() -> Self {
        Self::new()
    }
}

/// Summarises instead of dumping what may be hundreds of megabytes of keys.
impl fmt::Debug for KeySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("KeySet");
        s.field("len", &self.len())
            .field("total_bytes", &self.total_bytes());
        if let Some(first) = self.iter().next() {
            s.field("first", &String::from_utf8_lossy(first));
        }
        s.finish_non_exhaustive()
    }
}

impl<K: AsRef<[u8]>> FromIterator<K> for KeySet {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut keys = KeySet::new();
        keys.extend(iter);
        keys
    }
}

impl<K: AsRef<[u8]>> Extend<K> for KeySet {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        for key in iter {
            self.push(key.as_ref());
        }
    }
}

impl<'a> IntoIterator for &'a KeySet {
    type Item = &'a [u8];
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// An iterator over the keys of a [`KeySet`], created by [`KeySet::iter`].
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) ends: std::slice::Windows<'a, u64>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        self.ends
            .next()
            .map(|w| &self.bytes[w[0] as usize..w[1] as usize])
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ends.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.ends
            .next_back()
            .map(|w| &self.bytes[w[0] as usize..w[1] as usize])
    }
}

impl ExactSizeIterator for Iter<'_> {}
impl FusedIterator for Iter<'_> {}
