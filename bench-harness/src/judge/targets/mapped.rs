//! The goals of issue 39, computed from the mapped-files study's report
//! ([`crate::stages::mapped`]) as rows of the targets table, each through
//! [`Ratio::recomputed`]:
//! - an open without verification in at most 1 ms, at both sizes;
//! - `verify` at the disk's read speed: a cold open and verify at most 1.1× a cold read of the
//!   same file (large file; the small one for information);
//! - lookups on the mapped filter at most 1.05× the loaded filter's, in the same rounds, one at
//!   a time and batched, strangers and members, at both sizes;
//! - 8 processes querying one mapped large file: their PSS summed at most 1.1× the file (the
//!   small file's rows, mapped and loaded, for information);
//! - `filterlab query` of one key on the large file, cold: at most 0.1 s wall and 64 MB peak,
//!   process start included (warm runs for information).

use crate::record::conditions::{Api, Conditions, Terms, Timed, OURS_HASH};
use crate::record::{Bound, Ratio, Role};
use crate::stages::mapped::lookups::Pair;
use crate::stages::mapped::processes::ProcessRun;
use crate::stages::mapped::{Access, FileReport, FileSize, MappedReport};

/// An open without verification, milliseconds, at most.
pub const OPEN_MS: f64 = 1.0;
/// A cold verification over a cold read of the same file, at most.
pub const VERIFY_OVER_READ: f64 = 1.1;
/// Mapped lookups over loaded ones, at most.
pub const LOOKUP_RATIO: f64 = 1.05;
/// The readers' PSS summed over the file's size, at most.
pub const PSS_OVER_FILE: f64 = 1.1;
/// `filterlab query` of one key, wall milliseconds, at most.
pub const CLI_MS: f64 = 100.0;
/// `filterlab query` of one key, peak resident bytes, at most (64 MB).
pub const CLI_BYTES: f64 = 64e6;

/// The terms of every row: both sides hold the very same file, so the same rate in the same
/// bytes (a rate of 0, as a large table's may be, compares equal).
const SAME_FILE: Terms = Terms::NoWorse { bytes: Some(1.0) };

/// A side's conditions: every row's sides hold the same file, so its measured FP rate.
fn conditions(f: &FileReport, api: Api, timed: Timed, huge_pages: Option<f64>) -> Conditions {
    Conditions {
        api,
        achieved_fpr: f.lookups.fpr(),
        hash: OURS_HASH.into(),
        threads: 1,
        huge_pages,
        bytes: Some(f.bytes),
        timed,
        grown_from: None,
        keys: None,
    }
}

fn role(f: &FileReport, target_on_small: bool) -> Role {
    match (f.size, target_on_small) {
        (FileSize::Large, _) | (FileSize::Small, true) => Role::Target,
        (FileSize::Small, false) => Role::Information,
    }
}

fn file_name(f: &FileReport) -> String {
    format!(
        "the {} file ({:.1} MB)",
        f.size.word(),
        f.bytes as f64 / 1e6
    )
}

/// A figure against a fixed bound: `samples` over `limit` at most 1.
fn against_limit(
    what: String,
    role: Role,
    (name, samples): (String, &[f64]),
    (limit_name, limit): (&str, f64),
    cond: Conditions,
) -> Ratio {
    let mut sorted = samples.to_vec();
    let r = Ratio {
        what,
        role,
        numerator: name,
        numerator_value: crate::measure::median(&mut sorted),
        numerator_samples: samples.to_vec(),
        denominator: limit_name.into(),
        denominator_value: limit,
        denominator_samples: vec![limit],
        bound: Bound::AtMost(1.0),
        terms: SAME_FILE,
        numerator_conditions: cond.clone(),
        denominator_conditions: cond,
        ..Ratio::default()
    };
    r.recomputed()
}

/// `row`, unless the runs it rests on were meant to be cold and were not: then not measured,
/// with the reason ([`crate::stages::mapped::open::OpenTimes::not_cold`]).
fn if_cold(f: &FileReport, row: Ratio) -> Ratio {
    match f.open.not_cold() {
        None => row,
        Some(why) => Ratio {
            numerator_value: f64::NAN,
            numerator_samples: Vec::new(),
            differences: why,
            ..row
        }
        .recomputed(),
    }
}

fn open_row(f: &FileReport) -> Ratio {
    let n = f.open.open_ms.len();
    against_limit(
        format!(
            "mapped: open of {} without verification, ms / {OPEN_MS} ms",
            file_name(f)
        ),
        role(f, true),
        (
            format!("AnyFilter::open, ms (median of {n} rounds)"),
            &f.open.open_ms,
        ),
        ("the goal, 1 ms", OPEN_MS),
        conditions(f, Api::OneAtATime, Timed::Open, None),
    )
}

fn verify_row(f: &FileReport) -> Ratio {
    let cond = conditions(f, Api::OneAtATime, Timed::Open, None);
    let med = |v: &[f64]| crate::measure::median(&mut v.to_vec());
    let row = Ratio {
        what: format!(
            "mapped: open and verify of {}, cold, over a cold read of it",
            file_name(f)
        ),
        role: role(f, false),
        numerator: "AnyFilter::open + Mapped::verify, pages evicted first, ms".into(),
        numerator_value: med(&f.open.cold_verify_ms),
        numerator_samples: f.open.cold_verify_ms.clone(),
        denominator: "the file read whole through a 1 MiB buffer, pages evicted first, ms".into(),
        denominator_value: med(&f.open.cold_read_ms),
        denominator_samples: f.open.cold_read_ms.clone(),
        bound: Bound::AtMost(VERIFY_OVER_READ),
        terms: SAME_FILE,
        numerator_conditions: cond.clone(),
        denominator_conditions: cond,
        ..Ratio::default()
    };
    if_cold(f, row.recomputed())
}

fn lookup_row(f: &FileReport, p: &Pair) -> Ratio {
    let med = |v: &[f64]| crate::measure::median(&mut v.to_vec());
    let api = match p.api {
        Api::OneAtATime => "one at a time",
        Api::Batched => "batched",
    };
    Ratio {
        what: format!(
            "mapped: lookups of {} on {}, {api}, mapped / loaded",
            p.keys.word(),
            file_name(f)
        ),
        role: Role::Target,
        numerator: format!(
            "mapped (AnyFilter::open): ns per lookup of {}, {api}",
            p.keys.word()
        ),
        numerator_value: med(&p.mapped_ns),
        numerator_samples: p.mapped_ns.clone(),
        denominator: format!(
            "loaded (AnyFilter::load): ns per lookup of {}, {api}",
            p.keys.word()
        ),
        denominator_value: med(&p.loaded_ns),
        denominator_samples: p.loaded_ns.clone(),
        bound: Bound::AtMost(LOOKUP_RATIO),
        terms: SAME_FILE,
        // The page cache's pages are 4 KiB; the loaded table is on the huge pages it got.
        numerator_conditions: conditions(f, p.api, Timed::Lookups, Some(0.0)),
        denominator_conditions: conditions(f, p.api, Timed::Lookups, f.lookups.loaded_huge_pages),
        ..Ratio::default()
    }
    .recomputed()
}

fn pss_row(f: &FileReport, run: &ProcessRun) -> Ratio {
    let target = f.size == FileSize::Large && run.access == Access::Mapped;
    let total = run.total_pss() as f64;
    let cond = conditions(f, Api::OneAtATime, Timed::Memory, None);
    Ratio {
        what: format!(
            "mapped: PSS of {} {} readers of {} summed, over the file's size",
            run.pss.len(),
            run.access.word(),
            file_name(f)
        ),
        role: if target {
            Role::Target
        } else {
            Role::Information
        },
        numerator: format!(
            "the readers' PSS summed after {} lookups each, bytes",
            run.lookups
        ),
        numerator_value: total,
        numerator_samples: vec![total],
        denominator: "the file's size, bytes".into(),
        denominator_value: f.bytes as f64,
        denominator_samples: vec![f.bytes as f64],
        bound: Bound::AtMost(PSS_OVER_FILE),
        terms: SAME_FILE,
        numerator_conditions: cond.clone(),
        denominator_conditions: cond,
        ..Ratio::default()
    }
    .recomputed()
}

fn cli_rows(f: &FileReport) -> Vec<Ratio> {
    let Some(cli) = &f.cli else { return Vec::new() };
    let cond = conditions(f, Api::OneAtATime, Timed::Process, None);
    let bytes = |v: &[u64]| v.iter().map(|&b| b as f64).collect::<Vec<f64>>();
    let mut rows = Vec::new();
    for (cold, ms, rss) in [
        (true, &cli.cold_ms, &cli.cold_peak_rss),
        (false, &cli.warm_ms, &cli.warm_peak_rss),
    ] {
        let (word, role) = if cold {
            ("cold", Role::Target)
        } else {
            ("warm", Role::Information)
        };
        let cold_only = |row: Ratio| if cold { if_cold(f, row) } else { row };
        rows.push(cold_only(against_limit(
            format!(
                "mapped: `filterlab query` of one key on {}, {word}, wall ms / {CLI_MS} ms",
                file_name(f)
            ),
            role,
            (
                format!("wall ms from spawn to exit ({} runs)", ms.len()),
                ms,
            ),
            ("the goal, 100 ms", CLI_MS),
            cond.clone(),
        )));
        rows.push(cold_only(against_limit(
            format!(
                "mapped: `filterlab query` of one key on {}, {word}, peak RSS / 64 MB",
                file_name(f)
            ),
            role,
            ("peak resident bytes (ru_maxrss)".into(), &bytes(rss)),
            ("the goal, 64 MB", CLI_BYTES),
            cond.clone(),
        )));
    }
    rows
}

/// Every goal (and information row) of the report, small file first.
#[must_use]
pub fn goals(r: &MappedReport) -> Vec<Ratio> {
    let mut rows = Vec::new();
    for f in &r.files {
        rows.push(open_row(f));
        rows.push(verify_row(f));
        rows.extend(f.lookups.pairs.iter().map(|p| lookup_row(f, p)));
        rows.extend(f.processes.iter().map(|p| pss_row(f, p)));
        rows.extend(cli_rows(f));
    }
    rows
}
