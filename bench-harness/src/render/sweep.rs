//! `sweep.md`, rendered from the size sweep study's report alone, and its files (JSON, page, the
//! two plots).

use crate::plan::Output;
use crate::stages::sweep::SweepReport;
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// The page.
#[must_use]
pub fn render(r: &SweepReport) -> String {
    let m = &r.machine;
    let mut s = String::new();
    let _ = writeln!(s, "# Size sweep: lookup cost against filter size\n");
    let _ = writeln!(
        s,
        "Measured at commit {} ({}, {} cores of a {}, {:.0} s): every variant at a 1% target, built \
         once at each of {:?} keys (`bench-harness study sweep`; written by the harness from \
         sweep.json, do not edit). The build cost is the main job's, timed in interleaved rounds; \
         here the lookups are timed in interleaved rounds at each size, so the steps show where a \
         table leaves each cache.\n",
        m.commit, m.date, m.cores, m.cpu, m.wall_seconds, r.sizes
    );
    super::tables::sweep_table(&mut s, &r.records);
    for c in super::charts::size_sweep(&r.records) {
        let _ = writeln!(
            s,
            "![{0}]({1}.svg)\n\n*{0}* ([PNG]({1}.png))\n",
            c.caption, c.stem
        );
    }
    s
}

/// Writes `sweep.json`, `sweep.md` and the plots into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(r: &SweepReport, out: &Path) -> Result<()> {
    super::write_section(out, "sweep", r, render)?;
    super::charts::render(out, &super::charts::size_sweep(&r.records))?;
    Ok(())
}

impl Output for SweepReport {
    fn stamp(&mut self, wall_seconds: f64) {
        self.machine.wall_seconds = wall_seconds;
    }

    fn write(&self, out: &Path) -> Result<()> {
        write(self, out)
    }
}
