//! The process the study starts to measure the memory of several readers of one file
//! (`bench-harness mapped-reader`): it opens or loads the file, makes its lookups, says
//! `ready`, and holds the filter until its standard input closes, so that the parent reads its
//! memory while every reader holds what it touched.

use super::Access;
use anyhow::{Context, Result};
use filterlab::any::{AnyFilter, Mapped};
use filterlab::Filter;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::{Read, Write};
use std::path::Path;

/// What a reader holds.
enum Held {
    Mapped(Mapped),
    Loaded(AnyFilter),
}

impl Held {
    fn filter(&self) -> &AnyFilter {
        match self {
            Held::Mapped(m) => m,
            Held::Loaded(f) => f,
        }
    }
}

/// The line a reader writes when it is ready: `ready` and the hits of its lookups.
#[must_use]
pub fn ready_line(hits: u64) -> String {
    format!("ready {hits}\n")
}

/// The hits a ready line reports; `None` for any other line.
#[must_use]
pub fn parse_ready(line: &str) -> Option<u64> {
    line.trim_end().strip_prefix("ready ")?.parse().ok()
}

/// Opens (or loads) `path`, looks up `lookups` random 8-byte keys drawn from `seed`, writes the
/// ready line to stdout and waits for stdin to close.
///
/// # Errors
/// The file cannot be opened or loaded, or stdout is closed.
pub fn serve(path: &Path, access: Access, lookups: u64, seed: u64) -> Result<()> {
    let held = match access {
        Access::Mapped => Held::Mapped(AnyFilter::open(path)?),
        Access::Loaded => Held::Loaded(AnyFilter::load(path)?),
    };
    let filter = held.filter();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let hits = (0..lookups)
        .filter(|_| filter.contains(&rng.random::<u64>().to_le_bytes()))
        .count() as u64;
    let mut out = std::io::stdout().lock();
    out.write_all(ready_line(hits).as_bytes())
        .and_then(|()| out.flush())
        .context("writing the ready line")?;
    // Until the parent closes our stdin (or dies): the filter stays held.
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    drop(held);
    Ok(())
}

/// What [`spawn_measured`] says of the command it ran.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Its exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Its peak resident memory, bytes.
    pub peak_rss: u64,
    /// Milliseconds from its spawn to its exit.
    pub wall_ms: f64,
}

impl Measured {
    /// The line [`spawn_measured`] prints.
    #[must_use]
    pub fn line(&self) -> String {
        let code = self.code.map_or_else(|| "signal".into(), |c| c.to_string());
        format!("measured {code} {} {}\n", self.peak_rss, self.wall_ms)
    }

    /// The measurement a line says; `None` for any other line.
    #[must_use]
    pub fn parse(line: &str) -> Option<Measured> {
        let mut w = line.trim_end().strip_prefix("measured ")?.split(' ');
        let code = match w.next()? {
            "signal" => None,
            c => Some(c.parse().ok()?),
        };
        let m = Measured {
            code,
            peak_rss: w.next()?.parse().ok()?,
            wall_ms: w.next()?.parse().ok()?,
        };
        w.next().is_none().then_some(m)
    }
}

/// Runs `command` (its output discarded) from this small process, so that its peak memory
/// (`ru_maxrss`) counts its own pages only: a child started straight from the harness is
/// charged the harness's peak, whose address space it shares until it executes the command.
/// Prints [`Measured::line`].
///
/// # Errors
/// No command, or one that cannot start.
pub fn spawn_measured(command: &[std::ffi::OsString]) -> Result<()> {
    let (program, args) = command.split_first().context("no command to run")?;
    let started = std::time::Instant::now();
    let child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", program.to_string_lossy()))?;
    let ended = crate::measure::sys::wait_with_usage(child)?;
    let measured = Measured {
        code: ended.code,
        peak_rss: ended.peak_rss,
        wall_ms: started.elapsed().as_secs_f64() * 1e3,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(measured.line().as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measured_line_round_trips_and_a_mangled_one_is_refused() {
        for code in [Some(0), Some(3), None] {
            let m = Measured {
                code,
                peak_rss: 4_096_000,
                wall_ms: 2.5,
            };
            assert_eq!(Measured::parse(&m.line()), Some(m));
        }
        assert_eq!(Measured::parse("measured 0 12\n"), None);
        assert_eq!(Measured::parse("measured 0 12 1.0 extra\n"), None);
        assert_eq!(Measured::parse("ready 3\n"), None);
    }

    #[test]
    fn the_ready_line_round_trips_and_nothing_else_is_taken_for_it() {
        assert_eq!(parse_ready(&ready_line(42)), Some(42));
        assert_eq!(parse_ready("ready\n"), None);
        assert_eq!(parse_ready("error: no such file\n"), None);
        assert_eq!(parse_ready("ready x\n"), None);
    }
}
