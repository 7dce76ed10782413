//! The commands: each computes a serialisable result, printed as JSON or as text by `render`.

use crate::args::{Command, Keys};
use crate::build::{self, Change};
use crate::explain;
use crate::file;
use crate::foreign;
use crate::keys;
use crate::output::{self, Out};
use crate::recommend;
use crate::render;
use anyhow::{Context, Result};
use filterlab::any::Plan;
use filterlab::keylines::{escape, hex};
use filterlab::{Params, Variant};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// `calc`: `variant` (or every variant that can be) sized for `n` items at `fpr`, the Aleph
/// filter for the growth estimate `max_n` when there is one.
///
/// # Errors
/// The variant's refusal; without a variant, the first refusal when none can be sized.
pub fn calc(
    n: u64,
    fpr: f64,
    variant: Option<Variant>,
    max_n: Option<u64>,
) -> filterlab::Result<Vec<Plan>> {
    let params = |v: Variant| match (v, max_n) {
        (Variant::Aleph, Some(m)) => Params::new(n, fpr).max_n(m),
        _ => Params::new(n, fpr),
    };
    match variant {
        Some(v) => Ok(vec![v.plan(&params(v))?]),
        // Every variant that can be sized so (8-bit fingerprints cannot meet 0.1%); the first
        // refusal when none can.
        None => {
            let (ok, refused): (Vec<_>, Vec<_>) = Variant::ALL
                .iter()
                .map(|&v| v.plan(&params(v)))
                .partition(filterlab::Result::is_ok);
            if let (true, Some(Err(e))) = (ok.is_empty(), refused.into_iter().next()) {
                return Err(e);
            }
            Ok(ok.into_iter().flatten().collect())
        }
    }
}

/// Runs one command; returns the exit code.
///
/// # Errors
/// Anything that makes the command fail; the caller prints it on one line and exits with 2.
pub fn run(command: Command, out: Out) -> Result<u8> {
    note_the_file_written(&command);
    match command {
        Command::Calc {
            size,
            variant,
            max_n,
        } => {
            let plans = calc(size.n, size.fpr, variant, max_n)?;
            out.emit(plans.as_slice(), render::calc)
        }
        Command::Recommend(r) => {
            let needs = r.needs();
            match recommend::recommend(&needs) {
                Ok(r) => out.emit(&r, render::recommendation),
                Err(refusal) => {
                    output::error(out.json, &refusal.reason, &refusal.nearest);
                    Ok(crate::EXIT_ERROR)
                }
            }
        }
        Command::Build(b) => {
            let built = match b.to {
                Some(crate::args::Format::Guava | crate::args::Format::Redisbloom) => {
                    crate::convert::build_foreign(&b, out)?
                }
                Some(crate::args::Format::Parquet) => crate::parquet::build(&b, out)?,
                _ => build::build(&b, out)?,
            };
            out.emit(&built, render::build)
        }
        Command::Add {
            filter,
            keys,
            at,
            allow_jump,
        } => {
            let change = Change::Add { at, allow_jump };
            let changed = build::change(&filter, &keys, change, out)?;
            out.emit(&changed, render::changed)
        }
        Command::Remove { filter, keys } => {
            let changed = build::change(&filter, &keys, Change::Remove, out)?;
            out.emit(&changed, render::changed)?;
            Ok(u8::from(changed.absent > 0))
        }
        Command::Query {
            filter,
            keys,
            at,
            column,
        } => query(&filter, &keys, at, column.as_deref(), out),
        Command::Info { filter, verify } => info(&filter, verify, out),
        Command::Convert(c) => {
            let converted = crate::convert::convert(&c, out)?;
            out.emit(&converted, render::converted)
        }
        Command::Explain {
            variant,
            n,
            fpr,
            args,
        } => {
            let explained = match (variant, n, fpr) {
                (Some(v), Some(n), Some(p)) => explain::sized(v, n, p, args)?,
                _ => explain::saved(args)?,
            };
            out.emit(&explained, render::explain)
        }
        #[cfg(feature = "gate")]
        Command::Gate { command } => crate::gate::run(command, out),
    }
}

/// Tells the signal handler which file `command` saves: a command stopped by SIGINT or SIGTERM
/// while it saves removes its temporary file.
fn note_the_file_written(command: &Command) {
    match command {
        Command::Build(b) => crate::signals::writing(&b.output),
        Command::Add { filter, .. } | Command::Remove { filter, .. } => {
            crate::signals::writing(filter);
        }
        Command::Convert(c) => crate::signals::writing(&c.output),
        _ => {}
    }
}

/// `info`: a Parquet file's filters, a foreign filter, or a filterlab file (opened in place
/// where it allows it; its checksum verified with `--verify`).
fn info(filter: &Path, verify: bool, out: Out) -> Result<u8> {
    if let Some(parquet) = crate::parquet::sniff(filter)? {
        return out.emit(&crate::parquet::info(&parquet), crate::parquet::render_info);
    }
    if let Some(foreign) = foreign::sniff(filter)? {
        return out.emit(&foreign::info(&foreign), render::foreign_info);
    }
    let r = file::read_only(filter)?;
    if let (true, file::Reading::InPlace(m)) = (verify, &r) {
        m.verify().map_err(|e| {
            anyhow::anyhow!(
                "{} is damaged: {e}; restore it from a copy or build it again",
                filter.display()
            )
        })?;
    }
    out.emit(&file::info(&r, verify), render::info)
}

/// One answer of `query`.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The key: itself when it is UTF-8, else escaped (see [`escape`]).
    pub key: String,
    /// The key's bytes in hex, when it is not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_hex: Option<String>,
    /// `true`: maybe present; `false`: certainly absent.
    pub maybe_present: bool,
}

impl Answer {
    fn new(key: &[u8], maybe_present: bool) -> Self {
        let (key, key_hex) = match std::str::from_utf8(key) {
            Ok(s) => (s.to_string(), None),
            Err(_) => (escape(key), Some(hex(key))),
        };
        Answer {
            key,
            key_hex,
            maybe_present,
        }
    }
}

/// `query`: answers each key as it is read (stdin is streamed, never held), as text lines or
/// as one JSON array written element by element; a key that cannot be read part-way (a line
/// too long, a read error) ends the array with an `{"error": ...}` element, so stdout stays
/// valid JSON.
fn query(path: &Path, keys: &Keys, at: Option<u64>, column: Option<&str>, out: Out) -> Result<u8> {
    if let Some(parquet) = crate::parquet::sniff(path)? {
        if at.is_some() {
            anyhow::bail!(
                "--at is for windows counted in time; {} is a Parquet file: drop --at",
                path.display()
            );
        }
        return crate::parquet::query(path, &parquet, column, keys, out);
    }
    if column.is_some() {
        anyhow::bail!(
            "--column is for Parquet files; {} is not one",
            path.display()
        );
    }
    if let Some(foreign) = foreign::sniff(path)? {
        if at.is_some() {
            anyhow::bail!(
                "--at is for windows counted in time; {} is {}: drop --at",
                path.display(),
                foreign.describe()
            );
        }
        return answer(keys, out, |key| Ok(foreign.contains(key)));
    }
    // In place where the file allows it: the table is not read, only the pages a key touches.
    let opened = file::read_only(path)?;
    let filter = opened.filter();
    let at = crate::window::time(filter.variant(), at, false)?;
    answer(keys, out, |key| crate::window::contains(filter, key, at))
}

/// Writes `contains`'s answer for each key (see [`query`]); exit 1 when some key is absent.
fn answer(keys: &Keys, out: Out, mut contains: impl FnMut(&[u8]) -> Result<bool>) -> Result<u8> {
    // Keys from stdin are answered as they come (a pipeline may wait for each answer);
    // keys from a file or the arguments are written in large blocks.
    let interactive = keys.keys.is_empty()
        && keys
            .key_file
            .as_deref()
            .is_none_or(|p| p.as_os_str() == "-");
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut any_absent = false;
    let mut first = true;
    let read = keys::for_each_source_key(keys, |_, key| {
        let present = contains(key)?;
        any_absent |= !present;
        let text = if out.json {
            let answer = serde_json::to_string(&Answer::new(key, present))?;
            let sep = if first { "[\n  " } else { ",\n  " };
            format!("{sep}{answer}")
        } else {
            render::answer_line(key, present)
        };
        first = false;
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| if interactive { stdout.flush() } else { Ok(()) })
            .context("cannot write to stdout")
    });
    let lines = match read {
        Ok(lines) => lines,
        Err(e) => {
            // Answers already written stay valid JSON: the array ends with the error, which
            // is also reported on stderr as every error is.
            if out.json && !first {
                let error = serde_json::json!({ "error": output::chain(&e) });
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

#[cfg(test)]
mod tests;
