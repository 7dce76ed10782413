//! One-key-per-line files and their SHA-256.

use super::*;

/// Writes `keys` to `path`, one key per line (`key\n`), replacing any existing file.
///
/// # Errors
///
/// Fails on I/O errors, and refuses keys that [`read_keys`] could not read back unchanged:
/// empty keys, keys containing `\n`, and keys ending in `\r`.
pub fn write_keys(keys: &KeySet, path: &Path) -> anyhow::Result<()> {
    for (i, key) in keys.iter().enumerate() {
        if key.is_empty() || key.contains(&b'\n') || key.ends_with(b"\r") {
            bail!(
                "key {i} ({:?}) cannot be stored one per line: keys must be non-empty, \
                 contain no '\\n' and not end in '\\r'",
                String::from_utf8_lossy(key)
            );
        }
    }
    let file =
        File::create(path).with_context(|| format!("cannot create key file {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let write_all = |out: &mut BufWriter<File>| -> std::io::Result<()> {
        for key in keys {
            out.write_all(key)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    };
    write_all(&mut out).with_context(|| format!("cannot write key file {}", path.display()))
}

/// Reads a key file in the format [`crate::dataset::keyfile`] documents (UTF-8, one key per `\n` or
/// `\r\n` line, empty lines skipped, repeats dropped), streamed, validated line by line.
///
/// # Errors
///
/// Fails with a message naming `path` if it does not exist, cannot be read, or breaks the
/// format.
pub fn read_keys(path: &Path) -> anyhow::Result<KeySet> {
    let (keys, _) = crate::dataset::keyfile::read(path, usize::MAX, None, &mut Default::default())?;
    Ok(keys)
}

/// Returns the lower-case hex SHA-256 of the bytes [`write_keys`] writes for `keys` (each key
/// followed by `\n`), without writing anything.
///
/// `sha256sum FILE` prints the same digest, so a manifest can be checked by hand.
#[must_use]
pub fn sha256_hex(keys: &KeySet) -> String {
    let mut hasher = Sha256::new();
    for key in keys {
        hasher.update(key);
        hasher.update(b"\n");
    }
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(2 * digest.len());
    for byte in digest {
        hex.push(char::from(HEX_DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(HEX_DIGITS[usize::from(byte & 0xf)]));
    }
    hex
}

pub(super) const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";
