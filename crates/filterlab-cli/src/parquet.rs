//! Parquet files (issue 40): recognised by `PAR1` at both ends. `info` lists each column's
//! row-group filters (bytes, distinct count and where it came from, the rate at that count);
//! `query --column NAME` answers per key which row groups may hold it. The footer is read by
//! the `parquet` crate, the filters by `filter_blocked::parquet::file`, which refuses what a
//! lying footer points at.

use crate::args::Keys;
use crate::keys;
use crate::output::Out;
use crate::units::{pct, size};
use anyhow::{bail, Context, Result};
use filter_blocked::parquet::file::{Chunk, Ndv, ParquetFile, MAGIC};
use filterlab::keylines::{escape, hex};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

mod build;
pub use build::build;

/// The Parquet file at `path`, when its bytes start and end with `PAR1`; `None` otherwise.
///
/// # Errors
/// Something other than a regular file, an I/O error, or a file with Parquet's magic whose
/// footer or filters cannot be read (the reason named).
pub fn sniff(path: &Path) -> Result<Option<ParquetFile>> {
    let Some(mut file) = crate::file::open_regular(path)? else {
        return Ok(None);
    };
    let len = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let (mut head, mut tail) = ([0u8; 4], [0u8; 4]);
    let magic = len >= 8
        && file.read_exact(&mut head).is_ok()
        && file.seek(SeekFrom::End(-4)).is_ok()
        && file.read_exact(&mut tail).is_ok()
        && &head == MAGIC
        && &tail == MAGIC;
    if !magic {
        return Ok(None);
    }
    let parquet = ParquetFile::read(&file).with_context(|| {
        format!(
            "{} is a Parquet file (PAR1) but its bloom filters cannot be read",
            path.display()
        )
    })?;
    Ok(Some(parquet))
}

/// What `info` shows of a Parquet file.
#[derive(Debug, Serialize)]
pub struct ParquetInfo {
    /// `"parquet"`.
    pub format: &'static str,
    /// The footer's `created_by`.
    pub created_by: Option<String>,
    /// Rows.
    pub rows: i64,
    /// Row groups.
    pub row_groups: usize,
    /// Leaf columns, in schema order.
    pub columns: Vec<ColumnInfo>,
    /// The hash (Parquet's, fixed by the format).
    pub hash: &'static str,
}

/// One column of [`ParquetInfo`].
#[derive(Debug, Serialize)]
pub struct ColumnInfo {
    /// Dotted path.
    pub column: String,
    /// Physical type.
    pub physical_type: &'static str,
    /// One entry per row group.
    pub row_groups: Vec<ChunkInfo>,
}

/// One column chunk of [`ColumnInfo`].
#[derive(Debug, Serialize)]
pub struct ChunkInfo {
    /// Row group index.
    pub row_group: usize,
    /// Rows of the row group.
    pub rows: i64,
    /// Bitset bytes of the filter; `None` without a filter.
    pub filter_bytes: Option<usize>,
    /// `bloom_filter_offset`.
    pub filter_offset: Option<u64>,
    /// Distinct values (`None` when neither a statistic nor a filter gives one).
    pub ndv: Option<f64>,
    /// `"statistics"` (the chunk's `distinct_count`), `"estimated"` (from the filter's set
    /// bits) or `"none"`.
    pub ndv_source: &'static str,
    /// The split-block formula's rate for the filter's blocks at `ndv`.
    pub fpr_at_ndv: Option<f64>,
}

fn chunk_info(row_group: usize, c: &Chunk) -> ChunkInfo {
    let ndv = c.ndv();
    ChunkInfo {
        row_group,
        rows: c.rows,
        filter_bytes: c.filter.as_ref().map(|f| f.bloom.size_in_bytes()),
        filter_offset: c.filter.as_ref().map(|f| f.offset),
        ndv: ndv.value(),
        ndv_source: match ndv {
            Ndv::Statistics(_) => "statistics",
            Ndv::Estimated(_) => "estimated",
            Ndv::Unknown => "none",
        },
        fpr_at_ndv: c.fpr_at_ndv(),
    }
}

/// `info` of a Parquet file.
pub fn info(f: &ParquetFile) -> ParquetInfo {
    ParquetInfo {
        format: "parquet",
        created_by: f.created_by.clone(),
        rows: f.rows,
        row_groups: f.row_groups(),
        columns: f
            .columns
            .iter()
            .zip(&f.chunks)
            .map(|(col, chunks)| ColumnInfo {
                column: col.path.clone(),
                physical_type: col.value_type.name(),
                row_groups: chunks
                    .iter()
                    .enumerate()
                    .map(|(r, c)| chunk_info(r, c))
                    .collect(),
            })
            .collect(),
        hash: "xxh64 seed 0 of the plain encoding",
    }
}

/// `info`'s text.
pub fn render_info(i: &ParquetInfo) -> String {
    let mut out = format!(
        "format        Parquet, {} row groups, {} rows\ncreated by    {}\nhash          {}\n",
        i.row_groups,
        i.rows,
        i.created_by.as_deref().unwrap_or("(not recorded)"),
        i.hash
    );
    for c in &i.columns {
        let _ = writeln!(out, "column {} ({})", c.column, c.physical_type);
        for g in &c.row_groups {
            let _ = write!(out, "  row group {}: {} rows, ", g.row_group, g.rows);
            let Some(bytes) = g.filter_bytes else {
                let _ = writeln!(out, "no filter");
                continue;
            };
            let ndv = match (g.ndv, g.ndv_source) {
                (Some(n), "statistics") => format!("ndv {n:.0} (distinct_count)"),
                (Some(n), _) => format!("ndv {n:.0} (estimated from the set bits)"),
                (None, _) => "ndv unknown".to_string(),
            };
            let fpr = g.fpr_at_ndv.map_or("-".to_string(), pct);
            let _ = writeln!(
                out,
                "filter {} at offset {}, {ndv}, FPR {fpr} at that ndv",
                size(bytes as u64),
                g.filter_offset.unwrap_or(0)
            );
        }
    }
    out
}

/// One answer of `query` on a Parquet file.
#[derive(Debug, Serialize)]
struct Answer {
    key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_hex: Option<String>,
    maybe_present: bool,
    /// Row groups that may hold the key: their filter says maybe, or they have none.
    row_groups: Vec<usize>,
    /// Those of `row_groups` without a filter.
    no_filter: Vec<usize>,
}

fn answer(key: &[u8], chunks: &[Chunk], plain: &[u8]) -> Answer {
    let row_groups: Vec<usize> = (0..chunks.len())
        .filter(|&r| chunks[r].may_hold(plain))
        .collect();
    let (key, key_hex) = match std::str::from_utf8(key) {
        Ok(s) => (s.to_string(), None),
        Err(_) => (escape(key), Some(hex(key))),
    };
    Answer {
        key,
        key_hex,
        maybe_present: !row_groups.is_empty(),
        no_filter: (row_groups.iter().copied())
            .filter(|&r| chunks[r].filter.is_none())
            .collect(),
        row_groups,
    }
}

fn answer_line(key: &[u8], a: &Answer) -> String {
    let groups = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    if !a.maybe_present {
        return format!("absent\t{}\n", escape(key));
    }
    let unfiltered = if a.no_filter.is_empty() {
        String::new()
    } else {
        format!(" (no filter: {})", groups(&a.no_filter))
    };
    format!(
        "maybe-present\t{}\trow groups {}{unfiltered}\n",
        escape(key),
        groups(&a.row_groups)
    )
}

/// The index of the column `--column` names.
///
/// # Errors
/// No `--column`, or a name the file has no column of (the columns with filters listed).
fn chosen(path: &Path, f: &ParquetFile, column: Option<&str>) -> Result<usize> {
    let with_filters = || {
        (f.columns.iter().zip(&f.chunks))
            .filter(|(_, ch)| ch.iter().any(|c| c.filter.is_some()))
            .map(|(c, _)| c.path.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(name) = column else {
        bail!(
            "{} is a Parquet file: name the column with --column (with filters: {})",
            path.display(),
            with_filters()
        );
    };
    f.column(name).ok_or_else(|| {
        anyhow::anyhow!(
            "{} has no column {name:?} (with filters: {})",
            path.display(),
            with_filters()
        )
    })
}

/// `query FILE --column NAME`: per key, the row groups whose filter may hold it (and those
/// without a filter, which may hold anything), streamed as `query` streams its answers (keys
/// from stdin answered one by one). Exit 1 when some key is in no row group.
///
/// # Errors
/// No or an unknown `--column`, a key that is no value of the column's type, unreadable keys.
pub fn query(
    path: &Path,
    f: &ParquetFile,
    column: Option<&str>,
    keys: &Keys,
    out: Out,
) -> Result<u8> {
    let c = chosen(path, f, column)?;
    let (name, value_type, chunks) = (&f.columns[c].path, f.columns[c].value_type, &f.chunks[c]);
    let interactive = keys.keys.is_empty()
        && keys
            .key_file
            .as_deref()
            .is_none_or(|p| p.as_os_str() == "-");
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let (mut first, mut any_absent) = (true, false);
    let lines = keys::for_each_source_key(keys, |_, key| {
        let plain = value_type
            .plain(key)
            .map_err(|e| anyhow::anyhow!("key {:?} for column {name}: {e}", escape(key)))?;
        let a = answer(key, chunks, &plain);
        any_absent |= !a.maybe_present;
        let text = if out.json {
            let sep = if first { "[\n  " } else { ",\n  " };
            format!("{sep}{}", serde_json::to_string(&a)?)
        } else {
            answer_line(key, &a)
        };
        first = false;
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| if interactive { stdout.flush() } else { Ok(()) })
            .context("cannot write to stdout")
    });
    let lines = match lines {
        Ok(lines) => lines,
        Err(e) => {
            if out.json && !first {
                let error = serde_json::json!({ "error": crate::output::chain(&e) });
                let _ = write!(stdout, ",\n  {error}\n]\n").and_then(|()| stdout.flush());
            }
            return Err(e);
        }
    };
    let end = match (out.json, first) {
        (true, true) => "[]\n",
        (true, false) => "\n]\n",
        (false, _) => "",
    };
    stdout
        .write_all(end.as_bytes())
        .and_then(|()| stdout.flush())
        .context("cannot write to stdout")?;
    if lines.empty > 0 {
        out.note(&format!("{} empty lines skipped", lines.empty));
    }
    if let Some(w) = lines.cr_warning() {
        out.warn(&w);
    }
    Ok(u8::from(any_absent))
}
