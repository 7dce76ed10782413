//! The commands: each computes a serialisable result, printed as JSON or as text by `render`.

use crate::explain::{self, Formula, Touch};
use crate::keys;
use crate::plan::{self, Plan, Variant};
use crate::recommend::{self, Needs};
use crate::render;
use crate::store::AnyFilter;
use crate::{Command, Size};
use anyhow::{bail, Context, Result};
use filter_core::KeyHasher;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::io::{BufReader, Read, Write};
use std::path::Path;

/// Inputs at least this large get a progress bar (on a terminal).
const PROGRESS_MIN_BYTES: u64 = 8 << 20;

/// Runs one command; returns the exit code.
///
/// # Errors
/// Anything that makes the command fail; the caller prints it on one line and exits with 2.
pub fn run(command: Command, json: bool) -> Result<u8> {
    match command {
        Command::Calc { size, variant } => {
            let variants = variant.map_or(Variant::ALL.to_vec(), |v| vec![v]);
            let plans = variants
                .into_iter()
                .map(|v| plan::plan(v, size.n, size.fpr))
                .collect::<filterlab::Result<Vec<Plan>>>()?;
            emit(json, plans.as_slice(), render::calc)
        }
        Command::Recommend {
            size,
            deletes,
            growth,
            max_memory,
            threads,
        } => {
            let needs = Needs {
                n: size.n,
                fpr: size.fpr,
                deletes,
                growth,
                max_memory,
                threads,
            };
            match recommend::recommend(&needs) {
                Ok(r) => emit(json, &r, render::recommendation),
                Err(refusal) if json => {
                    println!("{}", serde_json::to_string_pretty(&refusal)?);
                    eprintln!(
                        "error: {}; nearest possible: {}",
                        refusal.reason, refusal.nearest
                    );
                    Ok(crate::EXIT_ERROR)
                }
                Err(refusal) => bail!("{}; nearest possible: {}", refusal.reason, refusal.nearest),
            }
        }
        Command::Build {
            variant,
            size,
            keys,
            output,
        } => {
            let summary = build(variant, size, &keys, &output)?;
            emit(json, &summary, render::build)
        }
        Command::Query {
            filter,
            keys,
            key_file,
        } => query(&filter, keys, key_file.as_deref(), json),
        Command::Info { filter } => {
            let (f, bytes) = AnyFilter::load(&filter)?;
            emit(json, &f.info(&bytes), render::info)
        }
        Command::Explain { variant, size, key } => {
            let plan = plan::plan(variant, size.n, size.fpr)?;
            let touch = key
                .as_deref()
                .map(|k| explain::touch(&plan, KeyHasher::default(), k.as_bytes()));
            let out = Explained {
                formulas: explain::formulas(&plan),
                key,
                touch,
                plan,
            };
            emit(json, &out, render::explain)
        }
    }
}

/// Prints `value` as JSON or with `text`; exit code 0.
fn emit<T: Serialize + ?Sized>(json: bool, value: &T, text: fn(&T) -> String) -> Result<u8> {
    let out = if json {
        serde_json::to_string_pretty(value)?
    } else {
        text(value)
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", out.trim_end()).context("cannot write to stdout")?;
    Ok(0)
}

/// What `explain` shows.
#[derive(Debug, Serialize)]
pub struct Explained {
    /// The sized filter.
    pub plan: Plan,
    /// Its formulas.
    pub formulas: Vec<Formula>,
    /// The key asked about.
    pub key: Option<String>,
    /// Where it lands.
    pub touch: Option<Touch>,
}

/// What `build` did.
#[derive(Debug, Serialize)]
pub struct Built {
    /// Variant.
    pub variant: Variant,
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
    /// Formula's rate at the final load.
    pub expected_fpr: f64,
    /// File written.
    pub output: String,
    /// Bytes written.
    pub file_bytes: u64,
}

fn open_keys(path: &Path) -> Result<(Box<dyn Read>, Option<u64>)> {
    if path.as_os_str() == "-" {
        return Ok((Box::new(std::io::stdin().lock()), None));
    }
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot open key file {}", path.display()))?;
    let len = file.metadata().ok().map(|m| m.len());
    Ok((Box::new(file), len))
}

fn progress(total: Option<u64>) -> ProgressBar {
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

/// Reads keys line by line into a new filter, counting duplicates, and saves it atomically.
fn build(variant: Variant, size: Size, keys_path: &Path, output: &Path) -> Result<Built> {
    ensure_allocatable(&plan::plan(variant, size.n, size.fpr)?)?;
    let mut filter = AnyFilter::build(variant, size.n, size.fpr)?;
    let (reader, total) = open_keys(keys_path)?;
    let bar = progress(total);
    let reader = BufReader::with_capacity(1 << 16, bar.wrap_read(reader));
    let counts = keys::insert_lines(reader, &mut filter, keys::Limits::default())
        .with_context(|| format!("cannot read {}", keys_path.display()))?;
    bar.finish_and_clear();
    let bytes = filter.to_bytes();
    write_atomically(output, &bytes)?;
    Ok(Built {
        variant,
        lines: counts.lines,
        inserted: filter.len(),
        duplicates: counts.duplicates,
        maybe_duplicates: counts.maybe_duplicates,
        empty: counts.empty,
        capacity: filter.capacity(),
        expected_fpr: filter.expected_fpr(),
        output: output.display().to_string(),
        file_bytes: bytes.len() as u64,
    })
}

/// Refuses, before any key is read, a filter this machine cannot allocate, with the CLI's advice
/// (lower --n or raise --fpr). The builders reserve their tables fallibly too; this check only
/// gives the earlier, more helpful message.
fn ensure_allocatable(plan: &Plan) -> Result<()> {
    let fits =
        usize::try_from(plan.bytes).is_ok_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok());
    if !fits {
        bail!(
            "a {} filter for {} items at {} needs {}, more memory than this machine can allocate; lower --n or raise --fpr",
            plan.variant.name(),
            plan.n,
            plan.fpr,
            render::size(plan.bytes)
        );
    }
    Ok(())
}

/// Writes to a temporary file beside `path`, then renames it over `path`: a failure leaves any
/// earlier file intact.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .context("the output path has no file name")?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let res = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res.with_context(|| format!("cannot write {}", path.display()))
}

/// One answer of `query`.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The key.
    pub key: String,
    /// `true`: maybe present; `false`: certainly absent.
    pub maybe_present: bool,
}

fn query(path: &Path, keys: Vec<String>, key_file: Option<&Path>, json: bool) -> Result<u8> {
    let (filter, _) = AnyFilter::load(path)?;
    let keys: Vec<Vec<u8>> = if !keys.is_empty() {
        keys.into_iter().map(String::into_bytes).collect()
    } else {
        let (reader, _) = open_keys(key_file.unwrap_or(Path::new("-")))?;
        let mut out = Vec::new();
        keys::for_each_key(BufReader::new(reader), keys::MAX_KEY_BYTES, |_, key| {
            out.push(key.to_vec());
            Ok(())
        })
        .context("cannot read the keys")?;
        out
    };
    let answers: Vec<Answer> = keys
        .iter()
        .map(|k| Answer {
            key: String::from_utf8_lossy(k).into_owned(),
            maybe_present: filter.contains(k),
        })
        .collect();
    emit(json, answers.as_slice(), render::answers)?;
    Ok(if answers.iter().all(|a| a.maybe_present) {
        0
    } else {
        1
    })
}
