//! The mapped-files study (issue 39): a saved split-block filter opened in place
//! (`AnyFilter::open`, the file mapped read-only) against the same file loaded (`AnyFilter::load`,
//! its table copied into memory), at two sizes: the main job's 10M keys at 1% (13 MB) and a
//! table declared for 10^9 keys (1.3 GB) holding the same 10M.
//!
//! What it measures, every figure from the same files in the same run:
//! - the open, with and without the whole-file checksum, against a plain read of the file and
//!   against a load, in interleaved rounds ([`open`]);
//! - the first lookup after an open, with the file's pages evicted from the page cache (cold) and
//!   cached (warm) ([`open`]);
//! - lookups on the mapped filter against the loaded one in the same rounds, one at a time and
//!   batched, members and strangers ([`lookups`]), and that both answer alike for every key;
//! - the proportional memory (PSS) of 8 processes that query one mapped file, against 8 that
//!   each load a copy, and `filterlab query` of one key on the large file, its process start
//!   included ([`processes`]).

pub mod lookups;
pub mod open;
pub mod processes;
pub mod reader;

use crate::plan::Ctx;
use crate::record::{Machine, Ratio};
use anyhow::{Context, Result};
use filterlab::any::{AnyFilter, Params};
use filterlab::Filter;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The variant every file of the study holds: the split-block filter (Parquet's layout).
pub const VARIANT: filterlab::any::Variant = filterlab::any::Variant::Blocked;
/// The rate the filters are declared for.
pub const TARGET_FPR: f64 = 0.01;

/// Which of the study's two files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileSize {
    /// Declared for the keys it holds (the main job's filter).
    Small,
    /// Declared for a hundred times the keys it holds (a 10^9-key table at full size).
    Large,
}

impl FileSize {
    /// Both, small first.
    pub const ALL: [FileSize; 2] = [FileSize::Small, FileSize::Large];

    /// Its name in the tables.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            FileSize::Small => "small",
            FileSize::Large => "large",
        }
    }
}

/// The study's sizes and loops.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Keys inserted into each file's filter (the dataset's first members).
    pub keys: u64,
    /// Keys the small file is declared for.
    pub small_declared: u64,
    /// Keys the large file is declared for.
    pub large_declared: u64,
    /// Interleaved rounds of the opens, loads, reads and first lookups.
    pub open_rounds: usize,
    /// The lookup loop (mapped against loaded).
    pub lookups: crate::measure::rounds::Policy,
    /// Queries per timed lookup pass.
    pub queries: usize,
    /// Processes that query one file at once.
    pub readers: usize,
    /// Random lookups each of those processes makes before its memory is read.
    pub reader_lookups: u64,
    /// Runs of `filterlab query` of one key, cold and warm each.
    pub cli_runs: usize,
}

impl Settings {
    /// The committed study: 10M keys, 13 MB and 1.3 GB files.
    #[must_use]
    pub fn full(keys: u64) -> Self {
        Settings {
            keys,
            small_declared: keys,
            large_declared: keys * 100,
            open_rounds: 15,
            lookups: crate::measure::rounds::Policy::adaptive(9, 41, 60.0),
            queries: 1_000_000,
            readers: 8,
            reader_lookups: 2_000_000,
            cli_runs: 15,
        }
    }

    /// The quick run's: the same steps on small files, a few rounds.
    #[must_use]
    pub fn quick(keys: u64) -> Self {
        Settings {
            large_declared: keys * 20,
            open_rounds: 3,
            lookups: crate::measure::rounds::Policy::fixed(3),
            queries: 100_000,
            readers: 4,
            reader_lookups: 100_000,
            cli_runs: 3,
            ..Settings::full(keys)
        }
    }

    /// Keys `size` is declared for.
    #[must_use]
    pub fn declared(&self, size: FileSize) -> u64 {
        match size {
            FileSize::Small => self.small_declared,
            FileSize::Large => self.large_declared,
        }
    }
}

/// How a process reads a saved filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// `AnyFilter::open`: mapped, read in place.
    Mapped,
    /// `AnyFilter::load`: read and copied into the process's memory.
    Loaded,
}

impl Access {
    /// Its name on the reader's command line and in the tables.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Access::Mapped => "mapped",
            Access::Loaded => "loaded",
        }
    }

    /// The access named `word`.
    #[must_use]
    pub fn from_word(word: &str) -> Option<Access> {
        [Access::Mapped, Access::Loaded]
            .into_iter()
            .find(|a| a.word() == word)
    }
}

/// One file's measurements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileReport {
    /// Which file.
    pub size: FileSize,
    /// Keys its filter was declared for.
    pub declared: u64,
    /// The file's length, bytes.
    pub bytes: u64,
    /// Opens, lookups and their agreement.
    pub open: open::OpenTimes,
    /// Lookups, mapped against loaded, in the same rounds.
    pub lookups: lookups::LookupReport,
    /// The processes that queried it at once, mapped and loaded.
    pub processes: Vec<processes::ProcessRun>,
    /// `filterlab query` of one key (the large file only).
    pub cli: Option<processes::CliRuns>,
}

/// The study as written to `mapped.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MappedReport {
    /// Where and how (the commit, the date and the study's wall time included).
    pub machine: Machine,
    /// Its sizes and loops.
    pub settings: Settings,
    /// One per file, small first.
    pub files: Vec<FileReport>,
    /// The timing loops, as results.json records its own.
    pub loops: Vec<crate::measure::rounds::LoopRecord>,
    /// The goals, computed from the files' figures (`crate::judge::targets::mapped`).
    pub goals: Vec<Ratio>,
}

/// Where the study writes its files (removed at its end).
#[must_use]
pub fn scratch_dir() -> std::path::PathBuf {
    std::path::PathBuf::from("target/mapped-study")
}

/// Builds the filter of `size` from the first `settings.keys` members and saves it to `path`.
fn write_file(ctx: &Ctx<'_>, settings: &Settings, size: FileSize, path: &Path) -> Result<u64> {
    let params = Params::new(settings.declared(size), TARGET_FPR);
    let mut f = AnyFilter::build(VARIANT, &params)?;
    let n = settings.keys as usize;
    let keys: Vec<&[u8]> = (0..n).map(|i| ctx.members.get(i)).collect();
    for chunk in keys.chunks(filterlab::BATCH) {
        f.insert_batch(chunk)?;
    }
    f.save(path)?;
    Ok(std::fs::metadata(path)?.len())
}

/// The lookups of the file at `path`, mapped against loaded, on queries drawn from the run.
fn lookups_of(
    ctx: &Ctx<'_>,
    settings: &Settings,
    size: FileSize,
    path: &Path,
) -> Result<(lookups::LookupReport, crate::measure::rounds::LoopRecord)> {
    let n = settings.keys as usize;
    let mix = |percent| {
        crate::measure::query_mix(
            ctx.members,
            n,
            ctx.probes,
            percent,
            settings.queries,
            ctx.seed,
        )
    };
    let queries = lookups::Queries {
        strangers: mix(0),
        members: mix(100),
    };
    let loaded = AnyFilter::load(path)?;
    let mapped = AnyFilter::open(path)?;
    let what = format!("mapped against loaded, the {} file", size.word());
    lookups::measure(
        &what,
        &loaded,
        &mapped,
        &queries,
        (ctx.members, ctx.probes, n),
        settings.lookups,
    )
}

/// Measures one file (written, measured, removed).
fn measure_file(
    ctx: &Ctx<'_>,
    settings: &Settings,
    size: FileSize,
    loops: &mut Vec<crate::measure::rounds::LoopRecord>,
) -> Result<FileReport> {
    let dir = scratch_dir();
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{}.flt", size.word()));
    let n = settings.keys as usize;
    let bytes = write_file(ctx, settings, size, &path)?;
    eprintln!(
        "   {} file: {bytes} bytes, {} keys declared",
        size.word(),
        settings.declared(size)
    );
    let open = open::measure(&path, ctx.members, n, settings.open_rounds)?;
    let (lookups, record) = lookups_of(ctx, settings, size, &path)?;
    loops.push(record);
    let exe = std::env::current_exe()?;
    let mut processes = vec![processes::readers(
        &exe,
        &path,
        Access::Mapped,
        settings.readers,
        settings.reader_lookups,
    )?];
    // Loaded copies of the large file would hold readers × its size (10 GB at full size).
    if size == FileSize::Small {
        processes.push(processes::readers(
            &exe,
            &path,
            Access::Loaded,
            settings.readers,
            settings.reader_lookups,
        )?);
    }
    let cli = match size {
        FileSize::Large => {
            let bin = crate::measure::binary::cli_binary()?;
            Some(processes::cli(
                &bin,
                &path,
                ctx.members.get(0),
                settings.cli_runs,
            )?)
        }
        FileSize::Small => None,
    };
    std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
    Ok(FileReport {
        size,
        declared: settings.declared(size),
        bytes,
        open,
        lookups,
        processes,
        cli,
    })
}

/// The study: both files measured, the goals left to the judge.
///
/// # Errors
/// A file that cannot be written, opened or measured, or a reader that fails.
pub fn run(ctx: &Ctx<'_>, settings: Settings, machine: Machine) -> Result<MappedReport> {
    anyhow::ensure!(
        settings.keys as usize <= ctx.members.len().min(ctx.probes.len()),
        "the mapped study needs {} members and as many strangers",
        settings.keys
    );
    let mut loops = Vec::new();
    let files = FileSize::ALL
        .iter()
        .map(|&size| measure_file(ctx, &settings, size, &mut loops))
        .collect::<Result<Vec<_>>>()?;
    let _ = std::fs::remove_dir(scratch_dir());
    Ok(MappedReport {
        machine,
        settings,
        files,
        loops,
        goals: Vec::new(),
    })
}

#[cfg(test)]
pub mod tests;
