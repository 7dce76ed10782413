//! The commands that write a filter: `build`, `add` and `remove`. Each checks what saving
//! needs before doing the work (the output is a regular file or new; `build`: its directory
//! takes new files, its file system has room, the table can be allocated), and saves through
//! the library's atomic save.

use crate::args::{Build, Format, Keys};
use crate::file::{self, Role};
use crate::keys;
use crate::output::Out;
use crate::units::{pct, size};
use anyhow::{anyhow, bail, Context, Result};
use filterlab::any::Plan;
use filterlab::keylines::{escape, LineCounts};
use filterlab::{AnyFilter, Filter, Params, Variant};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::io::BufReader;
use std::path::Path;

/// Inputs at least this large get a progress bar (on a terminal).
const PROGRESS_MIN_BYTES: u64 = 8 << 20;

/// Absent keys `remove` lists (all are counted).
const ABSENT_LISTED: usize = 100;

/// What `build` did.
#[derive(Debug, Serialize)]
pub struct Built {
    /// Variant.
    pub variant: Variant,
    /// The file's format.
    pub format: Format,
    /// Lines read.
    pub lines: u64,
    /// Distinct keys inserted.
    pub inserted: u64,
    /// Lines that repeated an earlier key (inserted once).
    pub duplicates: u64,
    /// Lines past the exact tracking limit ([`keys::TRACKED_KEYS`] distinct keys) that the
    /// filter already reported present: repeats or false positives, not inserted.
    pub maybe_duplicates: u64,
    /// Empty lines skipped.
    pub empty: u64,
    /// Capacity the filter was sized for.
    pub capacity: u64,
    /// Whether the capacity was counted from the key file (no `--n`).
    pub capacity_counted: bool,
    /// Formula's rate at the final load.
    pub expected_fpr: f64,
    /// Hash function.
    pub hash: &'static str,
    /// Seed.
    pub seed: u64,
    /// File written.
    pub output: String,
    /// Bytes written.
    pub file_bytes: u64,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<String>,
}

/// What `add` or `remove` did.
#[derive(Debug, Serialize)]
pub struct Changed {
    /// The filter file.
    pub filter: String,
    /// Keys inserted (`add`) or removed (`remove`).
    pub changed: u64,
    /// `remove`: keys the filter proved absent, not removed.
    pub absent: u64,
    /// `remove`: the first [`ABSENT_LISTED`] of them, escaped.
    pub absent_keys: Vec<String>,
    /// Empty lines skipped (an empty argument is refused).
    pub empty: u64,
    /// Items now.
    pub items: u64,
    /// Capacity.
    pub capacity: u64,
    /// Formula's rate now.
    pub expected_fpr: f64,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<String>,
    /// `true` for `add`, `false` for `remove`.
    #[serde(skip)]
    pub added: bool,
}

/// What `change` does to each key.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    /// `add`, at a time for a window counted in time.
    Add {
        /// `--at`.
        at: Option<u64>,
        /// `--allow-jump`: an `--at` that forgets the whole window is let through.
        allow_jump: bool,
    },
    /// `remove`.
    Remove,
}

/// Checks, before any key is read, that the directory of `path` takes a new file: creates
/// and removes a probe there (exclusive create, so nothing existing is touched).
pub(crate) fn check_directory(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let probe = dir.join(format!(".filterlab-probe-{}", std::process::id()));
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe);
    match created {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(e).with_context(|| {
            format!(
                "cannot save to {}: its directory does not take new files",
                path.display()
            )
        }),
    }
}

/// Refuses, before any key is read, a file that the output's file system has no room for
/// (where the system says how much room there is).
pub(crate) fn check_space(path: &Path, bytes: u64) -> Result<()> {
    match free_space(path) {
        Some(free) if free < bytes => bail!(
            "the filter's file needs {} but the file system of {} has {} free; free some space \
             or save elsewhere",
            size(bytes),
            path.display(),
            size(free)
        ),
        _ => Ok(()),
    }
}

#[cfg(unix)]
fn free_space(path: &Path) -> Option<u64> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let st = rustix::fs::statvfs(dir).ok()?;
    st.f_bavail.checked_mul(st.f_frsize)
}

#[cfg(not(unix))]
fn free_space(_: &Path) -> Option<u64> {
    None
}

/// Refuses, before any key is read, a filter this machine cannot allocate, with the CLI's advice
/// (lower --n or raise --fpr). The builders reserve their tables fallibly too; this check only
/// gives the earlier, more helpful message.
fn ensure_allocatable(plan: &Plan) -> Result<()> {
    let fits =
        usize::try_from(plan.bytes).is_ok_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok());
    if !fits {
        bail!(
            "the {} filter for {} items at {} needs {}, more memory than this machine can allocate; lower --n or raise --fpr",
            plan.variant.name(),
            plan.n,
            plan.fpr,
            size(plan.bytes)
        );
    }
    Ok(())
}

pub(crate) fn progress(total: Option<u64>) -> ProgressBar {
    match total {
        Some(t) if t >= PROGRESS_MIN_BYTES => ProgressBar::new(t).with_style(
            ProgressStyle::with_template(
                "{bar:30} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        Some(_) => ProgressBar::hidden(),
        None => ProgressBar::new_spinner(),
    }
}

/// Warnings about a filter holding more than its capacity (a static filter: more keys than
/// the --n it was `asked` for), and about the key lines; an error under `--strict` for the
/// former.
fn warnings(
    out: Out,
    filter: &AnyFilter,
    lines: &LineCounts,
    asked: Option<&Plan>,
) -> Result<Vec<String>> {
    let mut w = Vec::new();
    let caps = filter.capabilities();
    if let (true, Some(plan)) = (caps.static_set, asked.filter(|p| filter.len() > p.n)) {
        // Built once from its whole set, it is sized for every key it was given: at the rate
        // asked, but larger than the plan for --n.
        let message = format!(
            "{} distinct keys exceed --n {}: the {} filter was sized for all of them ({}, \
             not the {} planned)",
            filter.len(),
            plan.n,
            filter.variant(),
            size(filter.size_in_bytes() as u64),
            size(plan.bytes)
        );
        if out.strict {
            bail!("{message}; not saved (--strict)");
        }
        w.push(message);
    } else if caps.windowed {
        // A window forgets instead of filling; a slice of time that received more than its
        // share raises the rate while it is in the window.
        let planned = filter.plan()?.expected_fpr;
        if filter.expected_fpr() > planned * (1.0 + 1e-9) {
            let message = format!(
                "a slice of the window holds more than its share of the {} items per window; \
                 the rate is above the target while it is in the window (expected {}): \
                 spread the keys over the window's time, or build with a larger --n",
                filter.capacity(),
                pct(filter.expected_fpr())
            );
            if out.strict {
                bail!("{message}; not saved (--strict)");
            }
            w.push(message);
        }
    } else if filter.len() > filter.capacity() && !caps.grows {
        let message = format!(
            "{} keys exceed the capacity {}; the rate is above the target (expected {})",
            filter.len(),
            filter.capacity(),
            pct(filter.expected_fpr())
        );
        if out.strict {
            bail!("{message}; not saved (--strict)");
        }
        w.push(message);
    }
    w.extend(lines.cr_warning());
    for message in &w {
        out.warn(message);
    }
    Ok(w)
}

/// What a writer says when another holds the file's lock, before it waits.
pub(crate) fn waiting(out: Out, path: &Path) -> impl FnOnce() + '_ {
    move || {
        out.note(&format!(
            "waiting for another filterlab command that is writing {}",
            path.display()
        ));
    }
}

/// The variant of a `build` into a filterlab file, after refusing the other formats' flags
/// (`--to guava|redisbloom` is `crate::convert::build_foreign`, `--to parquet`
/// `crate::parquet::build`).
fn own_variant(b: &Build) -> Result<Variant> {
    if b.guava_strategy.is_some() {
        bail!("--guava-strategy is for --to guava");
    }
    if b.parquet_column.is_some() {
        bail!("--parquet-column is for --to parquet");
    }
    b.variant
        .ok_or_else(|| anyhow!("--variant is needed to build a filterlab file"))
}

/// The capacity of a `build` and, for a source that cannot be read twice, its keys read
/// whole: `--n`, or the key lines counted (see [`keys::count_or_buffer`]).
fn capacity(
    b: &Build,
    variant: Variant,
    hasher: &filterlab::KeyHasher,
) -> Result<(u64, bool, Option<keys::Buffered>)> {
    match b.n {
        Some(n) => Ok((n, false, None)),
        // Counting would size the window for the key lines, and all of them go into the one
        // slice of --at, sized for its share of --n: the window would start far above its
        // target (93.6% at 1% for 2,000 lines).
        None if variant.capabilities().timed => bail!(
            "--n is needed for a {} filter: the most items one window receives, spread over \
             its slices; the keys of one build all go into the slice of --at, which takes its \
             share of --n at the target, so counting the key lines would undersize it",
            variant
        ),
        None => match keys::count_or_buffer(&b.keys, |k| hasher.hash(k))? {
            keys::Counted::File(n) => Ok((n, true, None)),
            keys::Counted::Buffered(buffered) => {
                Ok((buffered.keys.len() as u64, true, Some(buffered)))
            }
        },
    }
}

/// The filter of a `build`, filled from the keys read whole (`buffered`) or else read from the
/// key source as they come; with a warning when the source yielded no key ([`keys::no_keys`]).
fn fill(
    b: &Build,
    params: &Params,
    variant: Variant,
    at: Option<filterlab::Timestamp>,
    buffered: Option<keys::Buffered>,
    out: Out,
) -> Result<(AnyFilter, keys::Counts, Option<String>)> {
    let static_set = variant.capabilities().static_set;
    let name = keys::source_name(&b.keys);
    let expected = b.n.is_none();
    if let Some(buffered) = buffered {
        let empty = keys::no_keys(&buffered.lines, &name, expected, out)?;
        let (filter, counts) = if static_set {
            let (hashes, counts) = keys::distinct_hashes(buffered);
            (
                AnyFilter::build_from_hashes(variant, params, &hashes)?,
                counts,
            )
        } else {
            let mut filter = AnyFilter::build(variant, params)?;
            let counts =
                keys::insert_buffered(&buffered, &mut filter, at, keys::Limits::default())?;
            (filter, counts)
        };
        return Ok((filter, counts, empty));
    }
    let (reader, total) = keys::open(&b.keys)?;
    let bar = progress(total);
    let reader = BufReader::with_capacity(1 << 16, bar.wrap_read(reader));
    let hasher = params.hasher;
    let (filter, counts, empty) = if static_set {
        // Built once from the whole key set.
        let (hashes, counts) =
            keys::hash_lines(reader, &name, |k| hasher.hash(k), keys::Limits::default())?;
        let empty = keys::no_keys(&counts.lines, &name, expected, out)?;
        let filter = AnyFilter::build_from_hashes(variant, params, &hashes)?;
        (filter, counts, empty)
    } else {
        let mut filter = AnyFilter::build(variant, params)?;
        let counts = keys::insert_lines(reader, &name, &mut filter, at, keys::Limits::default())?;
        let empty = keys::no_keys(&counts.lines, &name, expected, out)?;
        (filter, counts, empty)
    };
    bar.finish_and_clear();
    Ok((filter, counts, empty))
}

/// `build`: reads keys line by line into a new filter, counting duplicates, and saves it. A
/// key source that cannot be read twice (stdin, a pipe, a FIFO) is read once: without `--n`,
/// its keys' hashes are held to count them first.
///
/// # Errors
/// A bad output path or directory, a filter that cannot be allocated, unreadable keys, a
/// source that yields no key without `--n` (or under `--strict`), a full filter, a failed save;
/// under `--strict`, more keys than the capacity.
pub fn build(b: &Build, out: Out) -> Result<Built> {
    file::check_output(&b.output, Role::Output)?;
    let variant = own_variant(b)?;
    let hasher = b.hashing.hasher()?;
    let at = crate::window::time(variant, b.at, true)?;
    let (n, counted, buffered) = capacity(b, variant, &hasher)?;
    let mut params = Params::new(n, b.fpr).hasher(hasher);
    if let Some(ticks) = b.window_ticks {
        params = params.window_ticks(ticks);
    }
    if let Some(max_n) = b.max_n {
        params = params.max_n(max_n);
    }
    if let Some(layout) = b.cuckoo_layout {
        params = params.cuckoo_layout(layout.layout());
    }
    let plan = variant.plan(&params)?;
    ensure_allocatable(&plan)?;
    check_directory(&b.output)?;
    check_space(&b.output, plan.bytes)?;
    let (filter, counts, empty) = fill(b, &params, variant, at, buffered, out)?;
    let asked = b.n.is_some().then_some(&plan);
    let mut warnings = warnings(out, &filter, &counts.lines, asked)?;
    warnings.extend(empty);
    // Not replaced under an `add` or `remove` that is editing the file (its save would then
    // replace this filter with the old one plus its keys): it saves first, or after this one.
    let locked = file::exclusive(&b.output, waiting(out, &b.output))?;
    if let Some(l) = &locked {
        file::remove_killed_saves(l);
    }
    file::save(&filter, &b.output, Role::Output)?;
    drop(locked);
    let file_bytes = std::fs::metadata(&b.output).map_or(0, |m| m.len());
    Ok(Built {
        variant,
        format: Format::Filterlab,
        lines: counts.lines.lines,
        inserted: filter.len(),
        duplicates: counts.duplicates,
        maybe_duplicates: counts.maybe_duplicates,
        empty: counts.lines.empty,
        capacity: filter.capacity(),
        capacity_counted: counted,
        expected_fpr: filter.expected_fpr(),
        hash: hasher.kind().name(),
        seed: hasher.seed(),
        output: b.output.display().to_string(),
        file_bytes,
        warnings,
    })
}

/// `add` (`remove` false) or `remove`: loads the filter, applies every key, saves it.
///
/// # Errors
/// A missing, damaged or special file; a variant that cannot remove; a full filter (nothing
/// is saved then); a failed save; under `--strict`, more keys than the capacity.
pub fn change(path: &Path, source: &Keys, change: Change, out: Out) -> Result<Changed> {
    file::check_output(path, Role::Edited)?;
    // Held from the load to the save, so that a concurrent writer's keys are not lost.
    let locked = file::exclusive(path, waiting(out, path))?
        .ok_or_else(|| anyhow!("cannot read {}: no such file", path.display()))?;
    file::remove_killed_saves(&locked);
    let (mut filter, _) = file::load_locked(&locked)?;
    let (remove, at) = match change {
        Change::Add { at, allow_jump } => {
            let at = crate::window::time(filter.variant(), at, true)?;
            crate::window::check_jump(&filter, at, allow_jump, out)?;
            (false, at)
        }
        Change::Remove => (true, None),
    };
    if !remove && filter.capabilities().static_set {
        // Refused before any key is read: it is built once from its whole key set.
        let refusal = filter
            .variant()
            .unsupported("insert keys", |c| !c.static_set);
        bail!("{refusal}; rebuild it with `filterlab build` from the whole key set");
    }
    if remove && !filter.capabilities().deletes {
        // Refused before any key is read.
        let refusal = filter.variant().unsupported("remove keys", |c| c.deletes);
        bail!("{refusal}; rebuild it from the keys that remain");
    }
    let (mut changed, mut absent, mut absent_keys) = (0u64, 0u64, Vec::new());
    let lines = keys::for_each_source_key(source, |line, key| {
        let h = filter.hasher().hash(key);
        if !remove {
            let inserted = match at {
                Some(t) => filter.insert_hash_at(h, t),
                None => filter.insert_hash(h),
            };
            inserted.with_context(|| {
                format!(
                    "key {line}: the filter is full after {} keys; nothing was saved",
                    filter.len()
                )
            })?;
            changed += 1;
            return Ok(());
        }
        match filter.remove_hash(h) {
            Ok(()) => changed += 1,
            Err(filterlab::Error::NotPresent) => {
                absent += 1;
                if absent_keys.len() < ABSENT_LISTED {
                    absent_keys.push(escape(key));
                }
            }
            Err(e) => return Err(e).with_context(|| format!("key {line}: nothing was saved")),
        }
        Ok(())
    })?;
    let warnings = warnings(out, &filter, &lines, None)?;
    file::save(&filter, path, Role::Edited)?;
    drop(locked);
    Ok(Changed {
        filter: path.display().to_string(),
        changed,
        absent,
        absent_keys,
        empty: lines.empty,
        items: filter.len(),
        capacity: filter.capacity(),
        expected_fpr: filter.expected_fpr(),
        warnings,
        added: !remove,
    })
}

#[cfg(test)]
mod tests;
