//! mapped.md, rendered from mapped.json alone (so that `check` can re-render it byte for byte).

use crate::measure::rounds::LoopRecord;
use crate::plan::Output;
use crate::render::table::{Align, Table};
use crate::stages::mapped::{FileReport, MappedReport, TARGET_FPR};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// `median (min–max)` of `v`, each scaled by `k` and printed with `digits` decimals.
fn spread(v: &[f64], k: f64, digits: usize) -> String {
    if v.is_empty() {
        return "–".into();
    }
    let mut sorted: Vec<f64> = v.iter().map(|x| x * k).collect();
    let med = crate::measure::median(&mut sorted);
    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
    format!("{med:.digits$} ({lo:.digits$}–{hi:.digits$})")
}

fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// The page.
#[must_use]
pub fn render(r: &MappedReport) -> String {
    let m = &r.machine;
    let st = &r.settings;
    let mut s = String::from("# Mapped files: a saved filter opened in place against loaded\n\n");
    let _ = writeln!(
        s,
        "Measured at commit {} ({}, {} cores of a {}, {:.0} s; `bench-harness study mapped`; \
         written by the harness from mapped.json, do not edit). Two split-block files at {}, each \
         holding the run's first {} keys: one declared for them, one declared for {} (its table \
         a hundred times larger, as a 10^9-key filter's). `AnyFilter::open` maps the file and \
         checks its head in O(1); `Mapped::verify` reads every byte for the checksum; \
         `AnyFilter::load` reads and copies the table. Medians (min–max) over interleaved rounds; \
         cold: the file's pages dropped from the page cache first (`posix_fadvise`), with the \
         share still cached after the drop shown.\n",
        m.commit,
        m.date,
        m.cores,
        m.cpu,
        m.wall_seconds,
        crate::record::pct(TARGET_FPR),
        st.keys,
        st.large_declared
    );
    crate::render::table::study_goals(
        &mut s,
        &r.goals,
        "a bootstrap over the rounds; one sample: none wider than the value",
        4,
    );
    for f in &r.files {
        file_section(&mut s, f);
    }
    loops(&mut s, &r.loops);
    s
}

fn file_section(s: &mut String, f: &FileReport) {
    let o = &f.open;
    let _ = writeln!(
        s,
        "## The {} file: {} ({} keys declared)\n",
        f.size.word(),
        mb(f.bytes as f64),
        f.declared
    );
    let mut t = Table::new(&[("step", Align::Left), ("median (min–max)", Align::Left)]);
    t.row([
        "open (map, O(1) checks), ms".to_string(),
        spread(&o.open_ms, 1.0, 3),
    ]);
    t.row([
        "open and verify, cached, ms".to_string(),
        spread(&o.verify_ms, 1.0, 1),
    ]);
    t.row([
        "read the file whole, cached, ms".to_string(),
        spread(&o.read_ms, 1.0, 1),
    ]);
    t.row([
        "open and verify, cold, ms".to_string(),
        spread(&o.cold_verify_ms, 1.0, 1),
    ]);
    t.row([
        "read the file whole, cold, ms".to_string(),
        spread(&o.cold_read_ms, 1.0, 1),
    ]);
    t.row([
        "load (read, check, copy), ms".to_string(),
        spread(&o.load_ms, 1.0, 1),
    ]);
    t.row([
        "open and first lookup, cold, µs".to_string(),
        spread(&o.cold_first_us, 1.0, 0),
    ]);
    t.row([
        "open and first lookup, cached, µs".to_string(),
        spread(&o.warm_first_us, 1.0, 0),
    ]);
    t.row([
        "share of the file cached right after a drop".to_string(),
        spread(&o.resident_after_eviction, 100.0, 1) + " %",
    ]);
    s.push_str(&t.render());
    lookups_table(s, f);
    processes_table(s, f);
    if let Some(c) = &f.cli {
        let _ =
            writeln!(
            s,
            "\n`filterlab query FILE KEY` (one member), from the spawn to the exit, {} runs: cold \
             {} ms, peak {} MB; warm {} ms, peak {} MB.",
            c.cold_ms.len(),
            spread(&c.cold_ms, 1.0, 1),
            spread(&c.cold_peak_rss.iter().map(|&b| b as f64).collect::<Vec<_>>(), 1e-6, 1),
            spread(&c.warm_ms, 1.0, 1),
            spread(&c.warm_peak_rss.iter().map(|&b| b as f64).collect::<Vec<_>>(), 1e-6, 1),
        );
    }
    s.push('\n');
}

fn lookups_table(s: &mut String, f: &FileReport) {
    let l = &f.lookups;
    let _ = writeln!(
        s,
        "\nLookups, ns (median, min–max), the loaded side first in even rounds: {} keys asked of \
         both filters, {} answered differently, {} members missed. The loaded table's share on \
         huge pages: {}; the mapped file's pages are the page cache's 4 KiB ones.\n",
        l.checked,
        l.disagreements,
        l.false_negatives,
        l.loaded_huge_pages
            .map_or_else(|| "not known".into(), |h| format!("{:.0}%", h * 100.0))
    );
    let mut t = Table::new(&[
        ("keys", Align::Left),
        ("api", Align::Left),
        ("loaded", Align::Left),
        ("mapped", Align::Left),
    ]);
    for p in &l.pairs {
        t.row([
            p.keys.word().to_string(),
            format!("{:?}", p.api),
            spread(&p.loaded_ns, 1.0, 1),
            spread(&p.mapped_ns, 1.0, 1),
        ]);
    }
    s.push_str(&t.render());
}

fn processes_table(s: &mut String, f: &FileReport) {
    let _ = writeln!(
        s,
        "\nProcesses that held the file at once, each after its random lookups (PSS counts a \
         page shared by k processes 1/k to each):\n"
    );
    let mut t = Table::new(&[
        ("readers", Align::Left),
        ("lookups each", Align::Right),
        ("PSS summed", Align::Right),
        ("× the file", Align::Right),
        ("RSS each (median)", Align::Right),
    ]);
    for p in &f.processes {
        let mut rss: Vec<f64> = p.rss.iter().map(|&b| b as f64).collect();
        t.row([
            format!("{} {}", p.pss.len(), p.access.word()),
            p.lookups.to_string(),
            mb(p.total_pss() as f64),
            format!("{:.2}", p.total_pss() as f64 / f.bytes as f64),
            mb(crate::measure::median(&mut rss)),
        ]);
    }
    s.push_str(&t.render());
    if f.processes.len() == 1 {
        let _ = writeln!(
            s,
            "\nNo loaded readers of this file: each would hold a copy of it (about 8 × its size \
             together), more memory than the machines that run the study may have."
        );
    }
}

fn loops(s: &mut String, loops: &[LoopRecord]) {
    let _ = writeln!(s, "## Timing loops\n");
    for l in loops {
        let _ = writeln!(
            s,
            "- {}: {} rounds in {:.0} s ({}; widest median interval ±{})",
            l.what,
            l.rounds,
            l.seconds,
            l.stop.word(),
            l.widest
                .map_or_else(|| "not finite".into(), |w| format!("{:.1}%", w * 100.0))
        );
    }
}

/// Writes `mapped.json` and `mapped.md` into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(r: &MappedReport, out: &Path) -> Result<()> {
    super::write_section(out, "mapped", r, render)
}

impl Output for MappedReport {
    fn stamp(&mut self, wall_seconds: f64) {
        self.machine.wall_seconds = wall_seconds;
    }

    fn write(&self, out: &Path) -> Result<()> {
        write(self, out)
    }
}
