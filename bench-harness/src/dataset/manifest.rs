//! The committed manifest and the report's domain histogram.

use super::*;

/// A committed description of a dataset: how to regenerate it and how to recognise it.
///
/// `datasets/` holds this as JSON next to git-ignored key files; before a run the harness
/// regenerates or loads the keys and calls [`Manifest::check`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`GENERATOR_VERSION`] of the generator that produced the keys.
    pub generator: String,
    /// The settings the keys were generated with.
    pub spec: DatasetSpec,
    /// The members' key file.
    pub members: KeyFileDigest,
    /// The non-members' key file.
    pub non_members: KeyFileDigest,
}

/// Size and checksum of a key file as [`write_keys`] writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyFileDigest {
    /// Number of keys (lines).
    pub keys: u64,
    /// File size in bytes, newlines included.
    pub bytes: u64,
    /// Lower-case hex SHA-256 of the file, as [`sha256_hex`] computes it.
    pub sha256: String,
}

impl KeyFileDigest {
    /// Digests `keys` as they would be written by [`write_keys`].
    #[must_use]
    pub fn of(keys: &KeySet) -> Self {
        KeyFileDigest {
            keys: keys.len() as u64,
            bytes: (keys.total_bytes() + keys.len()) as u64,
            sha256: sha256_hex(keys),
        }
    }
}

impl Manifest {
    /// Returns an error unless `ds` has exactly the keys this manifest describes.
    ///
    /// # Errors
    ///
    /// Names the key set whose count or digest differs, and whether the generator version
    /// differs too (in which case regenerating cannot reproduce the committed keys).
    pub fn check(&self, ds: &Dataset) -> anyhow::Result<()> {
        for (what, expected, keys) in [
            ("members", &self.members, &ds.members),
            ("non-members", &self.non_members, &ds.non_members),
        ] {
            let actual = KeyFileDigest::of(keys);
            if &actual != expected {
                let hint = if self.generator == GENERATOR_VERSION {
                    String::new()
                } else {
                    format!(
                        " (the manifest was made by generator {}, this is {GENERATOR_VERSION})",
                        self.generator
                    )
                };
                bail!(
                    "{what} do not match the manifest{hint}: expected {} keys, {} bytes, \
                     sha256 {}; found {} keys, {} bytes, sha256 {}",
                    expected.keys,
                    expected.bytes,
                    expected.sha256,
                    actual.keys,
                    actual.bytes,
                    actual.sha256
                );
            }
        }
        Ok(())
    }
}

/// Describes `ds`, generated from `spec`, for committing under `datasets/`.
#[must_use]
pub fn manifest(spec: &DatasetSpec, ds: &Dataset) -> Manifest {
    Manifest {
        generator: GENERATOR_VERSION.to_owned(),
        spec: *spec,
        members: KeyFileDigest::of(&ds.members),
        non_members: KeyFileDigest::of(&ds.non_members),
    }
}

/// Counts keys per domain (the part after the last `@`) and returns the `top` most frequent,
/// sorted by count descending, then by domain ascending, so ties come out in a stable order.
/// Keys without `@` are not counted.
#[must_use]
pub fn domain_histogram(keys: &KeySet, top: usize) -> Vec<(String, u64)> {
    let mut counts: HashMap<&[u8], u64> = HashMap::new();
    for key in keys {
        if let Some(at) = key.iter().rposition(|&b| b == b'@') {
            *counts.entry(&key[at + 1..]).or_insert(0) += 1;
        }
    }
    let mut sorted: Vec<(&[u8], u64)> = counts.into_iter().collect();
    sorted.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    sorted
        .into_iter()
        .take(top)
        .map(|(domain, n)| (String::from_utf8_lossy(domain).into_owned(), n))
        .collect()
}
