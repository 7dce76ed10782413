//! `threads.md`, rendered from a threads report alone, and the report's files.

use crate::plan::Output;
use crate::record::pct;
use crate::render::table::{Align, Table};
use crate::stages::threads::ThreadsReport;
use anyhow::Result;

/// The Markdown page of a threads report.
pub fn render(r: &ThreadsReport) -> String {
    let n = r.settings.n;
    let mut z = Table::new(&[
        ("filter", Align::Left),
        ("bytes", Align::Right),
        ("bits/key", Align::Right),
        ("FP rate", Align::Right),
    ]);
    for s in &r.sizes {
        z.row([
            s.contender.name().to_string(),
            s.bytes.to_string(),
            format!("{:.2}", s.bytes as f64 * 8.0 / n.max(1) as f64),
            pct(s.fpr),
        ]);
    }
    let mut t = Table::new(&[
        ("filter", Align::Left),
        ("threads", Align::Right),
        ("op", Align::Left),
        ("ns/op median", Align::Right),
        ("min", Align::Right),
        ("max", Align::Right),
        ("rounds", Align::Right),
    ]);
    for x in &r.rows {
        t.row([
            x.contender.name().to_string(),
            x.threads.to_string(),
            format!("{:?}", x.op),
            format!("{:.2}", x.ns.median),
            format!("{:.2}", x.ns.min),
            format!("{:.2}", x.ns.max),
            x.ns.rounds.to_string(),
        ]);
    }
    let mut v = Table::new(&[
        ("target", Align::Left),
        ("measured", Align::Right),
        ("95% interval", Align::Right),
        ("bound", Align::Right),
        ("verdict", Align::Center),
    ]);
    for x in &r.targets {
        v.row([
            x.claim.clone(),
            x.measured.map_or_else(|| "-".into(), |m| format!("{m:.2}")),
            x.interval
                .map_or_else(|| "-".into(), |(lo, hi)| format!("{lo:.2}–{hi:.2}")),
            x.bound.text(),
            x.verdict.word().into(),
        ]);
    }
    let faults = crate::judge::threads::faults(&r.rows);
    let faults = if faults.is_empty() {
        String::new()
    } else {
        format!(
            "**Measurement fault**: speed-ups above the thread count cannot be; the run was \
             disturbed, and these speed-ups decide nothing: {}.\n\n",
            faults.join("; ")
        )
    };
    format!(
        "# One filter, many threads\n\n{faults}Run at commit {} on {} ({} cores). {n} keys at {}; inserts of every key split over the \
         threads, lookups of a 50/50 member/non-member mix; wall time of the whole threaded pass \
         per operation (thread start-up included), {} interleaved rounds with the order of the thread counts alternating; every table on 4 KiB pages (ours built without the huge-page advice, as fastbloom's). \
         Each target's interval is a 95% bootstrap over the paired rounds; met when the whole interval satisfies the bound, not met when none of it does, undecided otherwise.\n\n{}\n{}\n## Targets\n\n{}",
        r.machine.commit,
        r.machine.cpu,
        r.machine.cores,
        r.settings.fpr,
        r.settings.rounds,
        z.render(),
        t.render(),
        v.render()
    )
}

/// Writes `threads.json` and `threads.md` (rendered from it) into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(r: &ThreadsReport, out: &std::path::Path) -> Result<()> {
    super::write_section(out, "threads", r, render)
}

impl Output for ThreadsReport {
    fn judge(&mut self) {
        self.targets = crate::judge::threads::targets(&self.rows);
    }

    fn write(&self, out: &std::path::Path) -> Result<()> {
        write(self, out)?;
        eprintln!("{}", render(self));
        Ok(())
    }
}
