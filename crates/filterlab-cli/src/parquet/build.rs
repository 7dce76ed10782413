//! `build --to parquet`: a Parquet file of the distinct keys, one `BYTE_ARRAY` column in one row
//! group, with a bloom filter sized for `--n` (default: the distinct keys) at `--fpr`. The
//! `parquet` crate's writer writes it, so every Parquet reader reads it; filterlab checks that
//! the filter in the file is bit for bit the `ParquetBloom` it builds for the same keys and
//! sizing before saving (`filter_blocked::parquet::file::write_keys`).

use crate::args::{Build, HashArg};
use crate::build::{check_directory, check_space, progress, waiting, Built};
use crate::file::{self, Role};
use crate::keys::{self, Limits};
use crate::output::Out;
use anyhow::{bail, Context, Result};
use filter_blocked::parquet::file::write_keys;
use filterlab::Variant;
use std::collections::HashSet;
use std::io::BufReader;

/// Everything `build` takes that a Parquet file has no place for.
fn refuse_flags(b: &Build) -> Result<()> {
    if let Some(v) = b.variant.filter(|&v| v != Variant::Blocked) {
        bail!("--to parquet writes a split-block filter (blocked), not {v}: drop --variant or give blocked");
    }
    let h = &b.hashing;
    if h.seed.is_some() || h.secret_seed || h.hash != HashArg::Xxh3 {
        bail!("--to parquet hashes as Parquet does (xxh64, seed 0): drop --hash, --seed and --secret-seed");
    }
    if b.at.is_some() || b.window_ticks.is_some() || b.cuckoo_layout.is_some() {
        bail!("--at, --window-ticks and --cuckoo-layout have no place in a Parquet file");
    }
    if b.guava_strategy.is_some() {
        bail!("--guava-strategy is for --to guava");
    }
    Ok(())
}

/// `build --to parquet`.
///
/// # Errors
/// A flag a Parquet file has no place for, unreadable keys, no keys, a rate the writer
/// refuses, a bad output path, a failed save.
pub fn build(b: &Build, out: Out) -> Result<Built> {
    file::check_output(&b.output, Role::Output)?;
    refuse_flags(b)?;
    let column = b.parquet_column.as_deref().unwrap_or("key");
    check_directory(&b.output)?;
    let (reader, total) = keys::open(&b.keys)?;
    let bar = progress(total);
    let reader = BufReader::with_capacity(1 << 16, bar.wrap_read(reader));
    let (mut seen, mut distinct) = (HashSet::new(), Vec::new());
    let name = keys::source_name(&b.keys);
    let lines = keys::for_each_key(reader, Limits::default().key_bytes, &name, |_, key| {
        if seen.insert(key.to_vec()) {
            distinct.push(key.to_vec());
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    drop(seen);
    let empty = keys::no_keys(&lines, &name, b.n.is_none(), out)?;
    let (n, counted) = match b.n {
        Some(n) => (n, false),
        None => (distinct.len() as u64, true),
    };
    let written = write_keys(&distinct, column, n, b.fpr)
        .with_context(|| format!("cannot write a Parquet file of {} keys", distinct.len()))?;
    let fpr =
        filter_core::math::split_block_fpr(written.filter.blocks() as u64, distinct.len() as u64);
    let mut warnings: Vec<String> = empty.into_iter().collect();
    if distinct.len() as u64 > n {
        let message = format!(
            "{} distinct keys exceed --n {n}; the rate is above the target (expected {})",
            distinct.len(),
            crate::units::pct(fpr)
        );
        if out.strict {
            bail!("{message}; not saved (--strict)");
        }
        out.warn(&message);
        warnings.push(message);
    }
    check_space(&b.output, written.bytes.len() as u64)?;
    let locked = file::exclusive(&b.output, waiting(out, &b.output))?;
    if let Some(l) = &locked {
        file::remove_killed_saves(l);
    }
    filterlab::write_atomically(&b.output, &written.bytes)
        .with_context(|| format!("cannot save {}", b.output.display()))?;
    drop(locked);
    Ok(Built {
        variant: Variant::Blocked,
        format: crate::args::Format::Parquet,
        lines: lines.lines,
        inserted: distinct.len() as u64,
        duplicates: (lines.lines - lines.empty).saturating_sub(distinct.len() as u64),
        maybe_duplicates: 0,
        empty: lines.empty,
        capacity: n,
        capacity_counted: counted,
        expected_fpr: fpr,
        hash: "xxh64 (Parquet's)",
        seed: 0,
        output: b.output.display().to_string(),
        file_bytes: written.bytes.len() as u64,
        warnings,
    })
}
